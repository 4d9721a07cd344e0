#!/usr/bin/env python3
"""browse.py - open a local page (HTML or SVG) in headless Chromium, run a
script of actions on it as a user would, and report what each one found.

usage: browse.py PAGE [CHROMIUM] <SCRIPT

SCRIPT holds one action a line ('#' lines and blank lines are skipped):

  size W H        the viewport, in CSS pixels (default 1200 900)
  eval EXPR       evaluate a JavaScript expression: its value
  hover EXPR      move the mouse to the middle of the element EXPR gives
  click EXPR      press and release the left button there
  type TEXT       type TEXT into the focused element (Input.insertText)
  key NAME        press and release a key (Enter, Escape)
  wait SECONDS    let the page run
  shot FILE.png   a screenshot of the page

Each action prints one line, "ACTION<TAB>JSON": eval's value, the point
hover and click used, or null.  The last line is "errors<TAB>JSON": the
page's uncaught exceptions and console errors, as a list of strings.  The
mouse and keyboard go through Input.dispatchMouseEvent and
Input.dispatchKeyEvent, so the page sees real events (mouseover, click,
input).  Exits 1 with one line on stderr when Chromium cannot be started,
the page does not load, or an action fails (an EXPR that throws, an element
that is not there).
"""
import base64
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render import Browser  # noqa: E402

KEYS = {"Enter": (13, "\r"), "Escape": (27, "")}


def evaluate(b, s, expr):
    r = b.call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=s)
    if "exceptionDetails" in r:
        d = r["exceptionDetails"]
        raise RuntimeError("%s: %s" % (expr, d.get("exception", {}).get("description", d.get("text"))))
    return r["result"].get("value")


def centre(b, s, expr):
    p = evaluate(b, s, "(function () { var e = (%s); if (!e) return null;"
                       " var r = e.getBoundingClientRect();"
                       " return [r.left + r.width / 2, r.top + r.height / 2]; })()" % expr)
    if p is None:
        raise RuntimeError("%s: no such element" % expr)
    return p


def errors(events):
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + d.get("exception", {}).get("description", d.get("text", "?")))
        elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                              for a in p.get("args", []))))
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", "?"))
    return out


def run(b, page, lines):
    target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        b.call(domain + ".enable", session=s)
    b.call("Emulation.setDeviceMetricsOverride",
           {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=s)
    b.call("Page.navigate", {"url": "file://" + page}, session=s)
    b.wait_event("Page.loadEventFired")
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        act, _, arg = line.partition(" ")
        out = None
        if act == "size":
            w, h = map(int, arg.split())
            b.call("Emulation.setDeviceMetricsOverride",
                   {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False}, session=s)
        elif act == "eval":
            out = evaluate(b, s, arg)
        elif act in ("hover", "click"):
            x, y = out = centre(b, s, arg)
            b.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, session=s)
            if act == "click":
                for t in ("mousePressed", "mouseReleased"):
                    b.call("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left",
                                                        "clickCount": 1}, session=s)
        elif act == "type":
            b.call("Input.insertText", {"text": arg}, session=s)
        elif act == "key":
            code, text = KEYS[arg]
            for t in ("keyDown", "keyUp"):
                ev = {"type": t, "key": arg, "code": arg, "windowsVirtualKeyCode": code}
                if t == "keyDown" and text:
                    ev["text"] = text
                b.call("Input.dispatchKeyEvent", ev, session=s)
        elif act == "wait":
            time.sleep(float(arg))
        elif act == "shot":
            png = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                         session=s)
            with open(arg, "wb") as f:
                f.write(base64.b64decode(png["data"]))
        else:
            raise RuntimeError("unknown action '%s'" % act)
        # let the page's handlers run (and report what they throw) before the next action
        evaluate(b, s, "0")
        sys.stdout.write("%s\t%s\n" % (act, json.dumps(out)))
    sys.stdout.write("errors\t%s\n" % json.dumps(errors(b.events)))


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    page = os.path.abspath(sys.argv[1])
    chromium = sys.argv[2] if len(sys.argv) == 3 else "chromium"
    lines = sys.stdin.read().splitlines()
    with tempfile.TemporaryDirectory(prefix="ebs-browse.") as profile:
        try:
            b = Browser(chromium, profile)
        except OSError as e:
            sys.stderr.write("browse.py: cannot start %s: %s\n" % (chromium, e))
            return 1
        try:
            run(b, page, lines)
        except Exception as e:
            sys.stderr.write("browse.py: %s: %s\n" % (page, e))
            return 1
        finally:
            b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
