"""Browser tests of the web dev UI: a real headless Chromium driven by Playwright.

The browser is Debian's ``chromium`` (``apt-get install chromium``); Playwright's own
browser download is not used. Without a chromium binary these tests skip.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent / "server"):  # ui_support, server_support
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from server_support import LiveServer, live_servers  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """$PYADK_CHROMIUM, else /usr/bin/chromium, else chromium on PATH."""
    for candidate in (os.environ.get("PYADK_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("No chromium binary (apt-get install chromium, or set PYADK_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (own storage). Fails the test on a JavaScript error or a console error
    (a CSP violation, say); failed HTTP responses are left to the test."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource")
            else None
        ),
    )
    yield page
    context.close()
    assert errors == [], f"errors in the page: {errors}"


@pytest.fixture
def serve() -> Iterator[Callable[[Any], LiveServer]]:
    """``serve(app)`` runs ``app`` on a real uvicorn server; stopped after the test."""
    with live_servers() as start:
        yield start
