"""Tool auth in the web dev UI (real headless Chromium, real server): a turn whose
tool needs the user's API key shows a credential card; the key, typed in a password
field and submitted, runs the tool in the next turn and never shows on the page; an
answer the server refuses (a sign-in redirect from another consent) shows its reason
on the card."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_agents import api_key_agent, sign_in_agent
from ui_support import chat_texts, open_ui, send, show_tab

from pyadk.server import create_app

SECRET = "k-5e1d-do-not-show"

AUTH_TESTS = Path(__file__).resolve().parent.parent / "auth"  # the OAuth2 test server
if str(AUTH_TESTS) not in sys.path:
    sys.path.insert(0, str(AUTH_TESTS))

from oauth_server import LiveOAuthServer  # noqa: E402


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[LiveOAuthServer]:
    """A real OAuth2 server on 127.0.0.1 with the public client ``spa``."""
    with LiveOAuthServer() as live:
        live.register("spa", None)
        yield live


def submit_and_wait(page: Any, card: Any, value: str) -> None:
    before = int(page.get_attribute("body", "data-sent") or 0)
    card.locator("input").fill(value)
    card.locator("button.provide").click()
    page.wait_for_selector(f"body[data-sent='{before + 1}']")


def page_text(page: Any) -> str:
    """Every text of the page, hidden ones included (collapsed JSON, other tabs), and
    the values of its fields."""
    fields = page.locator("input, textarea").evaluate_all("nodes => nodes.map(n => n.value)")
    return page.locator("body").text_content() + "\n".join(fields)


def test_an_api_key_is_asked_for_sent_and_never_shown(serve, page):
    keys: list[str] = []
    server = serve(create_app(agents={"weather": api_key_agent(keys)}, web_ui=True))
    open_ui(page, server.url, app="weather")
    send(page, "weather in Paris?")

    card = page.locator("#chat .msg.auth")
    assert card.count() == 1 and keys == []
    assert card.get_attribute("data-state") == "pending"
    assert card.locator(".what").inner_text() == "forecast needs an API key (X-Api-Key header)."
    secret = card.locator("input.secret")
    assert secret.get_attribute("type") == "password" and secret.is_enabled()
    assert card.locator("a.sign-in").count() == 0
    assert chat_texts(page) == ["Let me look that up."]
    assert "adk_request_credential" not in page.locator("#chat").inner_text()
    waiting = page.locator("#thinking .entry.tool")
    assert waiting.count() == 1 and waiting.get_attribute("data-auth") == "waiting"
    assert "waiting for your credential" in waiting.locator(".result").inner_text()
    assert "Waiting for your credential" in page.inner_text("#status")
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "waiting"

    submit_and_wait(page, card, SECRET)

    assert keys == [SECRET]  # the tool ran again, with the key
    assert card.get_attribute("data-state") == "provided"
    assert card.locator(".decision").inner_text() == "Provided"
    assert secret.is_disabled() and secret.input_value() == ""
    assert chat_texts(page, "user") == ["weather in Paris?", "Provided a credential"]
    assert chat_texts(page)[-1] == "The sky in Paris is clear."
    assert chat_texts(page, "error") == []
    tools = page.locator("#thinking .entry.tool")
    assert tools.count() == 2  # the waiting call (turn 1) and its result (turn 2)
    assert "credential sent: ran in a later turn" in tools.first.locator(".result").inner_text()
    assert '"sky": "clear"' in tools.last.locator(".result-json pre").inner_text()
    assert page.inner_text("#status") == "Ready"
    assert SECRET not in page_text(page)

    # a reload rebuilds the answered card from the session's history, without the key
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator("#chat .msg.auth")
    assert card.get_attribute("data-state") == "provided"
    assert card.locator("input.secret").is_disabled()
    assert chat_texts(page, "user") == ["weather in Paris?", "Provided a credential"]
    assert chat_texts(page)[-1] == "The sky in Paris is clear."
    show_tab(page, "timeline")
    assert SECRET not in page_text(page)


def test_a_refused_sign_in_shows_why_and_the_card_can_be_answered_again(serve, page):
    agent = sign_in_agent("http://127.0.0.1:9")
    server = serve(create_app(agents={"profile": agent}, web_ui=True))
    open_ui(page, server.url, app="profile")
    send(page, "who am I?")

    card = page.locator("#chat .msg.auth")
    assert card.locator(".what").inner_text() == "my_profile needs you to sign in."
    link = card.locator("a.sign-in")
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in link.get_attribute("rel")
    href = link.get_attribute("href")
    assert href.startswith("http://127.0.0.1:9/authorize?") and "state=" in href
    assert card.locator("input.redirect").get_attribute("type") == "url"
    assert "Waiting for your credential" in page.inner_text("#status")

    # a redirect that does not carry the request's state (another consent, a forgery)
    submit_and_wait(page, card, "http://127.0.0.1:9/callback?code=c-1&state=forged")

    error = card.locator(".auth-error")
    assert "does not carry the state of the request" in error.inner_text()
    assert card.get_attribute("data-state") == "pending"
    assert card.locator("input.redirect").is_enabled()
    assert card.locator("button.provide").is_enabled()
    assert card.locator(".decision").inner_text() == "Waiting for your answer"
    assert "HTTP 400" in page.locator("#chat .msg.error .meta").inner_text()
    assert page.locator("#thinking .entry.tool").first.get_attribute("data-auth") == "waiting"


def test_sign_in_in_a_new_window_then_paste_the_redirect(serve, page, oauth_server):
    agent = sign_in_agent(oauth_server.url)
    server = serve(create_app(agents={"profile": agent}, web_ui=True))
    open_ui(page, server.url, app="profile")
    send(page, "who am I?")
    card = page.locator("#chat .msg.auth")

    with page.context.expect_page() as opened:  # the user signs in, in a new window
        card.locator("a.sign-in").click()
    window = opened.value
    window.wait_for_url(f"{oauth_server.url}/callback?**")
    landed = window.url
    window.close()
    submit_and_wait(page, card, landed)

    assert card.get_attribute("data-state") == "provided"
    assert card.locator(".decision").inner_text() == "Signed in"
    assert chat_texts(page, "user") == ["who am I?", "Signed in"]
    assert chat_texts(page)[-1] == "Profile: {'signed_in': True}"
    [exchange] = oauth_server.state.token_requests  # the code traded once, with PKCE
    assert exchange["form"]["grant_type"] == "authorization_code"
    assert exchange["form"]["code_verifier"]
    code = landed.partition("code=")[2].partition("&")[0]
    assert code and code not in page_text(page)
