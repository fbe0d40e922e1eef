"""Resuming an interrupted invocation from the web dev UI (real headless Chromium, real
server): a session whose last invocation was cut off after a tool call offers Resume on
its Invocations card; a click runs the rest of it (the idempotent tool runs again) and
streams the answer like a turn; a refused resume shows as an error bubble."""

from __future__ import annotations

from typing import Any

import httpx
from browser_agents import weather_agent
from ui_support import chat_texts, open_ui, show_tab

from pyadk.server import create_app

SESSIONS = "/apps/weather/users/alice/sessions"
QUESTION = "What is the weather in Paris?"


def crashed_events(invocation_id: str = "e-crash") -> list[dict[str, Any]]:
    """A user message and the agent's tool call: the process died before the result."""
    call = {"id": "call-1", "name": "weather", "args": {"city": "Paris"}}
    return [
        {
            "invocationId": invocation_id,
            "author": "user",
            "content": {"role": "user", "parts": [{"text": QUESTION}]},
        },
        {
            "invocationId": invocation_id,
            "author": "forecaster",
            "content": {"role": "model", "parts": [{"functionCall": call}]},
        },
    ]


def import_session(client: httpx.Client, events: list[dict[str, Any]]) -> None:
    response = client.post(SESSIONS, json={"sessionId": "crashed", "events": events})
    assert response.status_code == 200, response.text


def click_resume(page: Any, card: Any) -> None:
    before = int(page.get_attribute("body", "data-sent") or 0)
    card.locator("button.resume").click()
    page.wait_for_selector(f"body[data-sent='{before + 1}']")


def open_crashed(serve: Any, page: Any, calls: list[str]) -> tuple[Any, httpx.Client]:
    server = serve(create_app(agents={"weather": weather_agent(calls)}, web_ui=True))
    client = server.client()
    import_session(client, crashed_events())
    open_ui(page, server.url, app="weather", session="crashed")
    return show_tab(page, "invocations").locator(".invocation"), client


def test_resume_runs_the_rest_of_an_interrupted_invocation(serve, page):
    calls: list[str] = []
    card, client = open_crashed(serve, page, calls)

    assert card.count() == 1
    assert card.get_attribute("data-status") == "no answer"
    assert card.locator("button.resume").is_enabled()
    assert chat_texts(page, "user") == [QUESTION] and chat_texts(page) == []
    assert page.locator("#thinking .entry.tool .result").inner_text() == "running…"

    click_resume(page, card)

    assert calls == ["Paris"]  # the idempotent tool ran again, once
    assert chat_texts(page) == ["Weather in Paris: sunny."]
    assert chat_texts(page, "user") == [QUESTION]  # no new message
    assert card.count() == 1  # the same invocation, now complete
    assert card.get_attribute("data-status") == "completed"
    assert "invocation e-crash" in card.inner_text()
    assert card.locator("button.resume").count() == 0
    resumed = page.locator("#thinking .turn").last
    assert "resumed e-crash" in resumed.locator("h3").inner_text()
    tool = page.locator("#thinking .entry.tool")  # the cut-off call got its result
    assert tool.count() == 1
    assert '"sky": "sunny"' in tool.locator(".result-json pre").inner_text()
    assert "Turn completed" in resumed.inner_text()
    assert page.inner_text("#status") == "Ready"
    stored = client.get(SESSIONS + "/crashed").json()["events"]
    assert {event["invocationId"] for event in stored} == {"e-crash"}

    page.reload()  # the stored session shows the finished invocation
    page.wait_for_selector("body[data-ready='true']")
    card = show_tab(page, "invocations").locator(".invocation")
    assert card.get_attribute("data-status") == "completed"
    assert card.locator("button.resume").count() == 0
    assert chat_texts(page) == ["Weather in Paris: sunny."]


def test_a_refused_resume_shows_an_error_bubble(serve, page):
    calls: list[str] = []
    card, client = open_crashed(serve, page, calls)
    # meanwhile the session was replaced: its invocation is not there any more
    client.delete(SESSIONS + "/crashed")
    import_session(client, crashed_events("e-other"))

    click_resume(page, card)

    error = page.locator("#chat .msg.error")
    assert error.locator(".meta").inner_text() == "HTTP 404"
    assert "has no invocation 'e-crash' to resume" in error.locator(".body").inner_text()
    assert calls == []
    assert card.get_attribute("data-status") == "no answer"  # unchanged: can be retried
    assert card.locator("button.resume").is_enabled()


def test_only_the_last_unfinished_invocation_offers_resume(serve, page):
    calls: list[str] = []
    server = serve(create_app(agents={"weather": weather_agent(calls)}, web_ui=True))
    client = server.client()
    finished = [
        *crashed_events("e-1"),
        {
            "invocationId": "e-1",
            "author": "forecaster",
            "content": {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call-1",
                            "name": "weather",
                            "response": {"city": "Paris", "sky": "sunny"},
                        }
                    }
                ],
            },
        },
        {
            "invocationId": "e-1",
            "author": "forecaster",
            "content": {"role": "model", "parts": [{"text": "Sunny in Paris."}]},
        },
    ]
    import_session(client, finished)
    open_ui(page, server.url, app="weather", session="crashed")

    card = show_tab(page, "invocations").locator(".invocation")
    assert card.get_attribute("data-status") == "completed"
    assert page.locator("#invocations button.resume").count() == 0
