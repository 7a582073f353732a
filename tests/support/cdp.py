"""A minimal headless-Chromium driver over the DevTools protocol, for the documentation tests.

Starts the system `chromium` with a fresh profile, opens one page target and speaks the protocol
over a websocket (websocket-client). Collects console errors, uncaught exceptions and failed loads.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--remote-debugging-port=0", "--window-size=1280,900"]


def chromium_path() -> str | None:
    """The Chromium executable, or None when it is not installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="qttt-chromium-")
        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._port()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get("type") == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30,
                                              suppress_origin=True)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _port(self) -> int:
        marker = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if marker.is_file():
                text = marker.read_text().split()
                if text:
                    return int(text[0])
            if self.proc.poll() is not None:
                raise RuntimeError("chromium exited before opening its debugging port")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its debugging port within 30 s")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its result, keeping the events that arrive meanwhile."""
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                result: dict[str, Any] = msg.get("result", {})
                return result
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method: str, timeout: float = 30) -> dict[str, Any]:
        """Wait for the next event named `method`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method:
                    event: dict[str, Any] = msg
                    return event
        raise TimeoutError(method)

    def goto(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited)."""
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"script failed: {res['exceptionDetails'].get('text')}")
        return res["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen since the last navigation."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("exception: " + str(p["exceptionDetails"].get("exception", {})
                                               .get("description", p["exceptionDetails"].get("text"))))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                   for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                out.append(f"network: {p.get('errorText')}")
            elif m == "Network.responseReceived" and p["response"].get("status", 200) >= 400:
                out.append(f"http {p['response']['status']}: {p['response']['url']}")
        return out

    def screenshot(self, path: Path) -> None:
        """A PNG of the whole page."""
        metrics = self.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                               "scale": 1})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
