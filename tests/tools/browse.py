#!/usr/bin/env python3
"""browse.py - open a local page (HTML or SVG) in headless Chromium, run a
script of actions on it as a user would, and report what each one found.

usage: browse.py PAGE [CHROMIUM] <SCRIPT

SCRIPT holds one action a line ('#' lines and blank lines are skipped):

  size W H        the viewport, in CSS pixels (default 1200 900)
  eval EXPR       evaluate a JavaScript expression: its value (a promise's
                  once it settles)
  time EXPR       the same, timed: {"ms": wall milliseconds from asking to
                  the answer (a promise: to its settling), "value": ...}
  ready [SECONDS] wait until the page says it has drawn (window.ebsView &&
                  ebsView.ready, polled; give up after SECONDS, default 60):
                  {"ms": wall ms from the navigation's start to the poll that
                  saw it, "page_ms": the page's performance.now() then,
                  "timings": ebsView.timings}
  waitfor EXPR [SECONDS]  poll until EXPR is truthy (default 60 s): its value
  hover EXPR      move the mouse to the middle of the element EXPR gives
  click EXPR      press and release the left button there
  click.MODS EXPR the same with modifier keys held, MODS joined by '+':
                  ctrl, shift, alt, meta (click.ctrl, click.shift+ctrl)
  drag EXPR X0 X1 press the left button at fraction X0 of the element's
                  width (0 its left edge, 1 its right), at mid-height, move
                  to fraction X1 in steps, release there: [x0, y, x1, y]
  type TEXT       type TEXT into the focused element (Input.insertText)
  key NAME        press and release a key: Enter, Escape, Tab, Backspace,
                  ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End,
                  PageUp, PageDown, a digit, a letter, or one of / . , - = ;
                  with modifiers: key ctrl+a, key shift+Tab
  wait SECONDS    let the page run
  shot FILE.png   a screenshot of the page

Each action prints one line, "ACTION<TAB>JSON": eval's value, the point
hover and click used, or null.  Then "errors<TAB>JSON": the page's uncaught
exceptions and console errors (a Content-Security-Policy violation among
them), as a list of strings; the last line is "requests<TAB>JSON": every
request the page made (Network.requestWillBeSent, WebSockets included) but
for its own file:// URL and data: URLs, each as its URL, with " (blocked:
REASON)" or " (failed: TEXT)" when it did not load.  The mouse and
keyboard go through Input.dispatchMouseEvent and Input.dispatchKeyEvent, so
the page sees real events (mouseover, mousedown/move/up, click, keydown,
input).  Exits 1 with one line on stderr when Chromium cannot be started,
the page does not load, or an action fails (an EXPR that throws, an element
that is not there, a wait that times out).
"""
import base64
import json
import os
import re
import sys
import tempfile
import time
from urllib.parse import unquote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render import Browser  # noqa: E402

# NAME: (code, windowsVirtualKeyCode, text)
KEYS = {"Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""), "Tab": ("Tab", 9, ""),
        "Backspace": ("Backspace", 8, ""), "ArrowLeft": ("ArrowLeft", 37, ""),
        "ArrowUp": ("ArrowUp", 38, ""), "ArrowRight": ("ArrowRight", 39, ""),
        "ArrowDown": ("ArrowDown", 40, ""), "Home": ("Home", 36, ""), "End": ("End", 35, ""),
        "PageUp": ("PageUp", 33, ""), "PageDown": ("PageDown", 34, ""),
        "Delete": ("Delete", 46, ""), " ": ("Space", 32, " "),
        "/": ("Slash", 191, "/"), ".": ("Period", 190, "."), ",": ("Comma", 188, ","),
        "-": ("Minus", 189, "-"), "=": ("Equal", 187, "="), ";": ("Semicolon", 186, ";")}
for _c in "0123456789":
    KEYS[_c] = ("Digit" + _c, ord(_c), _c)
for _c in "abcdefghijklmnopqrstuvwxyz":
    KEYS[_c] = ("Key" + _c.upper(), ord(_c.upper()), _c)
# Input.dispatch*Event's modifiers bit field
MODS = {"alt": 1, "ctrl": 2, "meta": 4, "shift": 8}


def modifiers(text):
    m = 0
    for name in filter(None, text.lower().split("+")):
        if name not in MODS:
            raise RuntimeError("unknown modifier '%s' (alt, ctrl, meta, shift)" % name)
        m |= MODS[name]
    return m


def evaluate(b, s, expr, timeout=60):
    r = b.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
               session=s, timeout=timeout)
    if "exceptionDetails" in r:
        d = r["exceptionDetails"]
        raise RuntimeError("%s: %s" % (expr, d.get("exception", {}).get("description", d.get("text"))))
    return r["result"].get("value")


def rect(b, s, expr):
    """The element's box in the viewport, scrolled into view first: [left, top, width, height]."""
    p = evaluate(b, s, "(function () { var e = (%s); if (!e) return null;"
                       " e.scrollIntoView({block: 'nearest', inline: 'nearest'});"
                       " var r = e.getBoundingClientRect();"
                       " return [r.left, r.top, r.width, r.height]; })()" % expr)
    if p is None:
        raise RuntimeError("%s: no such element" % expr)
    return p


def centre(b, s, expr):
    x, y, w, h = rect(b, s, expr)
    return [x + w / 2, y + h / 2]


def mouse(b, s, kind, x, y, mods=0, button="left", buttons=1, clicks=1):
    ev = {"type": kind, "x": x, "y": y, "modifiers": mods}
    if kind != "mouseMoved":
        ev.update(button=button, clickCount=clicks)
    else:
        ev.update(button=button if buttons else "none", buttons=buttons)
    b.call("Input.dispatchMouseEvent", ev, session=s)


def poll(b, s, expr, seconds):
    """Evaluate EXPR until it is truthy: its value; RuntimeError after SECONDS."""
    end = time.monotonic() + seconds
    while True:
        v = evaluate(b, s, expr)
        if v:
            return v
        if time.monotonic() > end:
            raise RuntimeError("%s: still false after %g s" % (expr, seconds))
        time.sleep(0.005)


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


def requests(events, page_url):
    """Every request but for the page's own URL and data: URLs, with why it did not load."""
    urls, why = {}, {}
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Network.requestWillBeSent":
            urls.setdefault(p["requestId"], p.get("request", {}).get("url", "?"))
        elif m.get("method") == "Network.webSocketCreated":
            urls.setdefault(p["requestId"], p.get("url", "?"))
        elif m.get("method") == "Network.loadingFailed":
            why[p["requestId"]] = ("blocked: " + p["blockedReason"] if p.get("blockedReason")
                                   else "failed: " + p.get("errorText", "?"))
    out = []
    for rid, url in urls.items():
        if unquote(url.split("#")[0]) == unquote(page_url) or url.startswith("data:"):
            continue
        out.append(url + (" (%s)" % why[rid] if rid in why else ""))
    return out


def run(b, page, lines):
    target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        b.call(domain + ".enable", session=s)
    b.call("Emulation.setDeviceMetricsOverride",
           {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=s)
    url = "file://" + page
    t0 = time.monotonic()
    b.call("Page.navigate", {"url": url}, session=s)
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
        elif act == "time":
            t = time.monotonic()
            v = evaluate(b, s, arg, timeout=600)
            out = {"ms": round((time.monotonic() - t) * 1000, 3), "value": v}
        elif act == "ready":
            poll(b, s, "!!(window.ebsView && window.ebsView.ready)", float(arg or 60))
            ms = round((time.monotonic() - t0) * 1000, 3)
            out = evaluate(b, s, "({page_ms: performance.now(), timings: window.ebsView.timings})")
            out = dict(ms=ms, **out)
        elif act == "waitfor":
            expr, secs = arg, 60.0
            m = re.match(r"^(.*\S)\s+([0-9.]+)$", arg)
            if m:
                expr, secs = m.group(1), float(m.group(2))
            out = poll(b, s, expr, secs)
        elif act == "hover" or act == "click" or act.startswith("click."):
            mods = modifiers(act[6:]) if act.startswith("click.") else 0
            x, y = out = centre(b, s, arg)
            mouse(b, s, "mouseMoved", x, y, mods, buttons=0)
            if act != "hover":
                mouse(b, s, "mousePressed", x, y, mods)
                mouse(b, s, "mouseReleased", x, y, mods)
        elif act == "drag":
            expr, f0, f1 = arg.rsplit(None, 2)
            left, top, w, h = rect(b, s, expr)
            # within the element: its last pixel column is at left + w - 1
            x0 = left + min(max(float(f0), 0.0), 1.0) * (w - 1)
            x1 = left + min(max(float(f1), 0.0), 1.0) * (w - 1)
            y = top + h / 2
            mouse(b, s, "mouseMoved", x0, y, buttons=0)
            mouse(b, s, "mousePressed", x0, y)
            for i in range(1, 11):
                mouse(b, s, "mouseMoved", x0 + (x1 - x0) * i / 10, y)
            mouse(b, s, "mouseReleased", x1, y)
            out = [x0, y, x1, y]
        elif act == "type":
            b.call("Input.insertText", {"text": arg}, session=s)
        elif act == "key":
            mods, name = 0, arg
            if "+" in arg[:-1]:
                pre, name = arg[:-1].rsplit("+", 1)
                name += arg[-1]
                mods = modifiers(pre)
            if name not in KEYS:
                raise RuntimeError("unknown key '%s'" % name)
            code, vk, text = KEYS[name]
            key = name
            if mods & MODS["shift"] and len(name) == 1 and name.isalpha():
                key = text = name.upper()
            if mods & (MODS["ctrl"] | MODS["alt"] | MODS["meta"]):
                text = ""
            for t in ("keyDown" if text else "rawKeyDown", "keyUp"):
                ev = {"type": t, "key": key, "code": code, "windowsVirtualKeyCode": vk,
                      "nativeVirtualKeyCode": vk, "modifiers": mods}
                if t == "keyDown" and text:
                    ev["text"] = ev["unmodifiedText"] = text
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
    # what is still on its way (an image a click inserted) is in by then
    evaluate(b, s, "new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 50); }); })")
    sys.stdout.write("errors\t%s\n" % json.dumps(errors(b.events)))
    sys.stdout.write("requests\t%s\n" % json.dumps(requests(b.events, url)))


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
