"""Regenerates the web UI screenshots of docs/ (run by hand, not a test):

    python tests/webui/make_screenshots.py

Serves examples/vana with its offline stand-in model, chats in headless Chromium and
saves docs/web-ui.png (chat, thinking panel, timeline) and docs/web-ui-invocations.png.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(HERE.parent / "server")]

from conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402
from server_support import LiveServer  # noqa: E402
from ui_support import open_ui, send, show_tab  # noqa: E402

from pyadk.server import create_app  # noqa: E402

MESSAGES = [
    "Review this code:\nfrom os import *\ndef load(path, cache={}):\n    print(path)",
    "Full review please:\npassword = 'hunter22'\nif user == None:\n    print(user)  # TODO",
]


def main() -> None:
    from playwright.sync_api import sync_playwright

    os.environ["VANA_MODEL"] = "offline"
    executable = chromium_path()
    if executable is None:
        raise SystemExit("No chromium binary: apt-get install chromium")
    app = create_app(ROOT / "examples" / "vana", web_ui=True)
    with LiveServer(app) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        open_ui(page, server.url, app="vana", user="dev")
        for message in MESSAGES:
            send(page, message)
        handoff = page.locator("#thinking .entry.handoff_text").last
        handoff.evaluate("entry => entry.scrollIntoView({block: 'start'})")
        page.screenshot(path=ROOT / "docs" / "web-ui.png")
        show_tab(page, "invocations")
        page.screenshot(path=ROOT / "docs" / "web-ui-invocations.png")
        browser.close()


if __name__ == "__main__":
    main()
