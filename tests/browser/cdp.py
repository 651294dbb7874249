"""A headless Chromium driven over its DevTools pipe (standard library
only): load a page with JavaScript off, read back its DOM and take a
screenshot, in one browser start (about 2 s).

--dump-dom with --blink-settings=scriptEnabled=false prints nothing in
Chromium 120 and later (its new headless mode reads the DOM through the
page's script engine), and --disable-javascript does not stop a page's
scripts there; Emulation.setScriptExecutionDisabled does both
(https://chromedevtools.github.io/devtools-protocol/tot/Emulation/).
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile


class BrowserError(Exception):
    pass


class Browser:
    """One headless Chromium; render() a page at a time, then close()."""

    def __init__(self, chromium, timeout_s=30):
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="autosize-chromium-")
        # we write requests to its fd 3 and read replies from its fd 4,
        # each message JSON ended by a NUL byte
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--disable-gpu", "--no-sandbox",
             "--remote-debugging-pipe", "--no-first-run",
             "--user-data-dir=" + self.profile, "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0

    def _send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def _recv(self):
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.from_r], [], [], self.timeout_s)
            if not ready:
                raise BrowserError("no answer from chromium in %d s"
                                   % self.timeout_s)
            data = os.read(self.from_r, 1 << 16)
            if not data:
                raise BrowserError("chromium exited: %s" % self._stderr())
            self.buf += data
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def _call(self, method, params=None, session=None):
        want = self._send(method, params, session)
        while True:
            msg = self._recv()
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"]))
                return msg["result"]

    def _stderr(self):
        try:
            self.proc.wait(5)
            return self.proc.stderr.read().decode(errors="replace")[-500:]
        except subprocess.TimeoutExpired:
            return "(still running)"

    def render(self, path, screenshot, width=1200, height=900,
               max_height=5000):
        """The DOM of file path as the browser serializes it, scripts
        off, in a width x height window; a PNG of the whole page (at most
        max_height pixels high) to screenshot."""
        target = self._call("Target.createTarget",
                            {"url": "about:blank"})["targetId"]
        s = self._call("Target.attachToTarget",
                       {"targetId": target, "flatten": True})["sessionId"]
        self._call("Emulation.setScriptExecutionDisabled", {"value": True},
                   s)
        self._call("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height,
                    "deviceScaleFactor": 1, "mobile": False}, s)
        self._call("Page.enable", {}, s)
        self._call("Page.navigate",
                   {"url": "file://" + os.path.abspath(path)}, s)
        while True:
            msg = self._recv()
            if msg.get("method") == "Page.loadEventFired" and \
                    msg.get("sessionId") == s:
                break
        root = self._call("DOM.getDocument", {"depth": 0}, s)["root"]
        dom = self._call("DOM.getOuterHTML", {"nodeId": root["nodeId"]},
                         s)["outerHTML"]
        # the whole page (up to max_height) for a person to look at
        size = self._call("Page.getLayoutMetrics", {}, s)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": width, "scale": 1,
                "height": min(max(size["height"], height), max_height)}
        png = self._call("Page.captureScreenshot",
                         {"format": "png", "clip": clip,
                          "captureBeyondViewport": True}, s)["data"]
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(png))
        self._call("Target.closeTarget", {"targetId": target})
        return dom

    def close(self):
        try:
            self._send("Browser.close")
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)
        shutil.rmtree(self.profile, ignore_errors=True)
