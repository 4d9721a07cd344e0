#!/usr/bin/env python3
"""render.py - open a local HTML file in headless Chromium and report what it
renders: the page's innerText (text as laid out, hidden text left out) on
stdout, and a PNG screenshot.

usage: render.py PAGE.html SCREENSHOT.png [CHROMIUM]

Talks the DevTools protocol over --remote-debugging-pipe (NUL-separated JSON
on file descriptors 3 and 4), so nothing listens on a port and nothing is
fetched from the network.  Exits 1 with one line on stderr when Chromium
cannot be started or the page does not load within 60 seconds.
"""
import base64
import json
import os
import select
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # the child gets the pipes as fds 3 (commands) and 4 (answers)
        def child_fds():
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)  # out of 3 and 4's way
            os.dup2(a, 3)  # dup2 leaves the copies inheritable
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-quic", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "--window-size=1200,900"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False)  # (close_fds would close 3 and 4)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_chrome], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == name:
                    del self.events[i]
                    return m
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) == 4 else "chromium"
    with tempfile.TemporaryDirectory(prefix="ebs-render.") as profile:
        try:
            b = Browser(chromium, profile)
        except OSError as e:
            sys.stderr.write("render.py: cannot start %s: %s\n" % (chromium, e))
            return 1
        try:
            target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            b.call("Page.enable", session=s)
            b.call("Page.navigate", {"url": "file://" + page}, session=s)
            b.wait_event("Page.loadEventFired")
            text = b.call("Runtime.evaluate", {"expression": "document.body.innerText",
                                               "returnByValue": True}, session=s)
            png = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                         session=s)
        except Exception as e:
            sys.stderr.write("render.py: %s: %s\n" % (page, e))
            return 1
        finally:
            b.close()
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png["data"]))
    sys.stdout.write(text["result"]["value"] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
