"""Helpers of the browser tests: open the dev UI, send a message, read the panes."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode


def open_ui(page: Any, url: str, app: str | None = None, user: str = "alice", **extra: str) -> None:
    """Opens the dev UI (``#app=...&user=...``) and waits until it has loaded."""
    params = {"user": user, **({"app": app} if app else {}), **extra}
    page.goto(f"{url}/dev-ui/#{urlencode(params)}")
    page.wait_for_selector("body[data-ready='true']")


def send(page: Any, text: str) -> None:
    """Types ``text``, sends it and waits until the turn is over."""
    before = int(page.get_attribute("body", "data-sent") or 0)
    page.fill("#message", text)
    page.click("#send")
    page.wait_for_selector(f"body[data-sent='{before + 1}']")


def click_and_wait(page: Any, card: Any, button: str) -> None:
    """Clicks ``button`` (a class) of an approval ``card`` and waits until the turn that
    answer sends is over."""
    before = int(page.get_attribute("body", "data-sent") or 0)
    card.locator(f"button.{button}").click()
    page.wait_for_selector(f"body[data-sent='{before + 1}']")


def chat_texts(page: Any, role: str = "agent") -> list[str]:
    """The texts of the chat bubbles of ``role`` (agent, user, error)."""
    return page.locator(f"#chat .msg.{role} .body").all_inner_texts()


def session_hash(page: Any) -> dict[str, str]:
    """The app/user/session the page's URL hash holds."""
    fragment = page.url.partition("#")[2]
    return dict(pair.split("=", 1) for pair in fragment.split("&") if "=" in pair)


def show_tab(page: Any, name: str) -> Any:
    """Selects an inspector tab (timeline, state, invocations); returns its panel."""
    page.click(f"[role=tab][data-tab={name}]")
    return page.locator(f"#{name}")
