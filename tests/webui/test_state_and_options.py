"""Editing the session state and setting run options in the web dev UI (real headless
Chromium, real server): a value is checked as JSON in the browser, saved with PATCH
.../sessions/{id} and the State tab reloads; editing waits while a turn runs; run
options (streaming, maxLlmCalls, budget) are sent with the next turns and kept."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from browser_agents import echo_agent, gated_agent, remember
from server_support import run_body
from ui_support import chat_texts, open_ui, send, show_tab

from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest
from pyadk.server import create_app
from pyadk.testing import FunctionModel, Stream, function_call

SESSION = "/apps/{app}/users/alice/sessions/s1"


def noted_agent() -> LlmAgent:
    """Calls ``remember`` with the user's text (two model calls a turn), then streams
    "I have noted your message. It was: <text>" in two deltas."""

    def reply(request: LlmRequest) -> object:
        last = request.contents[-1].parts[0]
        if last.function_response is None:
            return function_call("remember", {"text": last.text or ""})
        text = last.function_response.response["stored"]
        return Stream(["I have noted your message. ", f"It was: {text}"])

    return LlmAgent(name="noter", model=FunctionModel(reply), tools=[remember])


def stored(client: Any, app: str) -> dict[str, Any]:
    return client.get(SESSION.format(app=app)).json()


def state_value(page: Any, key: str) -> Any:
    """The value (``dd``: its JSON, its Edit button) of ``key`` in the State tab."""
    return page.locator(f"#state dd[data-key='{key}']")


def test_edit_and_add_state_keys(serve, page):
    server = serve(create_app(agents={"echo": echo_agent()}, web_ui=True))
    client = server.client()
    client.post(SESSION.format(app="echo"), json={"topic": "tea", "n": 1})
    open_ui(page, server.url, app="echo", session="s1")
    show_tab(page, "state")

    dd = state_value(page, "topic")
    dd.locator("button.edit").click()
    editor = dd.locator("textarea")
    assert editor.input_value() == '"tea"'  # the value as JSON
    editor.fill("coffee")  # not JSON: refused in the browser, nothing sent
    dd.locator("button.save").click()
    error = dd.locator(".state-error")
    assert "Not valid JSON (text needs double quotes" in error.inner_text()
    assert stored(client, "echo")["events"] == []

    editor.fill('"coffee"')
    dd.locator("button.save").click()
    page.wait_for_selector("#state dt.changed[data-key='topic']")
    assert state_value(page, "topic").locator("pre").inner_text() == "coffee"
    assert "State updated: topic" in page.inner_text("#status")
    session = stored(client, "echo")
    assert session["state"] == {"topic": "coffee", "n": 1}
    [event] = session["events"]
    assert event["author"] == "user" and event["invocationId"].startswith("p-")
    assert event["actions"]["stateDelta"] == {"topic": "coffee"}

    add = page.locator("#state form.state-add")
    add.locator("input.new-key").fill("temp:scratch")
    add.locator("textarea.new-value").fill("1")
    add.locator("button.add").click()
    assert "never stored" in add.locator(".state-error").inner_text()
    add.locator("input.new-key").fill("cart")
    add.locator("textarea.new-value").fill('{"items": [1, 2], "paid": false}')
    add.locator("button.add").click()
    page.wait_for_selector("#state dt.changed[data-key='cart']")
    cart = json.loads(state_value(page, "cart").locator("pre").inner_text())
    assert cart == {"items": [1, 2], "paid": False}
    assert stored(client, "echo")["state"]["cart"] == {"items": [1, 2], "paid": False}

    # the agent's next turn works on the edited state; the reload shows it
    send(page, "hello")
    assert chat_texts(page) == ["Stored: hello"]
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    text = show_tab(page, "state").inner_text()
    assert re.search(r"topic\s+coffee", text) and re.search(r"remembered\s+hello", text)


def test_state_cannot_be_edited_while_a_turn_runs(serve, page):
    gate = threading.Event()
    server = serve(create_app(agents={"oracle": gated_agent(gate)}, web_ui=True))
    server.client().post(SESSION.format(app="oracle"), json={"topic": "tea"})
    try:
        open_ui(page, server.url, app="oracle", session="s1")
        show_tab(page, "state")
        assert page.is_enabled("#state button.edit") and page.is_enabled("#state button.add")
        page.fill("#message", "question")
        page.click("#send")
        page.locator("#chat .msg.agent.streaming").wait_for()
        assert page.is_disabled("#state button.edit")
        assert page.is_disabled("#state button.add")
        assert page.is_disabled("#state input.new-key")
        assert page.is_disabled("#run-options-form input[name=maxLlmCalls]")
    finally:
        gate.set()
    page.wait_for_selector("body[data-sent='1']")
    assert page.is_enabled("#state button.edit") and page.is_enabled("#state button.add")


def test_an_edit_refused_by_a_busy_session_shows_the_conflict(serve, page):
    gate = threading.Event()
    server = serve(create_app(agents={"oracle": gated_agent(gate)}, web_ui=True))
    client = server.client()
    client.post(SESSION.format(app="oracle"), json={"topic": "tea"})
    open_ui(page, server.url, app="oracle", session="s1")
    show_tab(page, "state")
    try:  # another client's turn holds the session
        with client.stream("POST", "/run_ui_events", json=run_body("oracle", "alice", "s1", "q")):
            dd = state_value(page, "topic")
            dd.locator("button.edit").click()
            dd.locator("textarea").fill('"coffee"')
            dd.locator("button.save").click()
            error = dd.locator(".state-error")
            error.wait_for()
            message = error.inner_text()
            gate.set()
    finally:
        gate.set()
    assert message.startswith("Not saved: Session 's1' is busy")
    assert stored(client, "oracle")["state"] == {"topic": "tea"}


def test_run_options_are_sent_kept_and_a_budget_stop_is_shown(serve, page):
    server = serve(create_app(agents={"noter": noted_agent()}, web_ui=True))
    bodies: list[dict[str, Any]] = []

    def record(request: Any) -> None:
        if request.url.endswith("/run_ui_events"):
            bodies.append(json.loads(request.post_data))

    page.on("request", record)
    open_ui(page, server.url, app="noter")
    send(page, "first")  # defaults: streaming, no runOptions
    assert bodies[-1]["streaming"] is True and "runOptions" not in bodies[-1]
    assert page.locator("#chat .msg.agent").last.get_attribute("data-deltas") == "2"
    assert "(defaults)" in page.inner_text("#run-options summary")

    page.click("#run-options summary")
    form = page.locator("#run-options-form")
    form.locator("input[name=streaming]").uncheck()
    send(page, "second")  # not streamed: the answer arrives whole, in one delta
    assert bodies[-1]["streaming"] is False and "runOptions" not in bodies[-1]
    assert page.locator("#chat .msg.agent").last.get_attribute("data-deltas") == "1"
    assert chat_texts(page)[-1] == "I have noted your message. It was: second"

    form.locator("input[name=llmCalls]").fill("1.5")
    assert "llmCalls must be a positive whole number" in page.inner_text("#run-options-error")
    form.locator("input[name=llmCalls]").fill("1")
    form.locator("input[name=maxLlmCalls]").fill("7")
    form.locator("input[name=wallTime]").fill("30")
    assert "max 7 LLM calls" in page.inner_text("#run-options summary")
    send(page, "third")  # the tool call needs a second model call: over budget

    assert bodies[-1]["runOptions"] == {"maxLlmCalls": 7, "budget": {"llmCalls": 1, "wallTime": 30}}
    assert "Budget exceeded" in chat_texts(page, "error")[-1]
    last_turn = page.locator("#thinking .turn").last
    assert "Turn stopped: budget reached" in last_turn.locator(".entry.done").inner_text()
    assert "reached its budget" in page.inner_text("#status")
    card = show_tab(page, "invocations").locator(".invocation").last
    assert card.get_attribute("data-status") == "budget"

    page.reload()  # kept by the browser
    page.wait_for_selector("body[data-ready='true']")
    page.click("#run-options summary")
    assert page.input_value("#run-options-form input[name=llmCalls]") == "1"
    assert page.input_value("#run-options-form input[name=maxLlmCalls]") == "7"
    assert not page.is_checked("#run-options-form input[name=streaming]")
    page.click("#run-options-reset")
    send(page, "fourth")
    assert bodies[-1]["streaming"] is True and "runOptions" not in bodies[-1]
    assert chat_texts(page)[-1] == "I have noted your message. It was: fourth"
