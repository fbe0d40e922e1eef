"""The web dev UI in a real headless Chromium, against a real server: streamed chat,
the thinking panel (handoffs, tool calls with args and results), the inspector tabs,
and a reload finding the session again (rebuilt from the ui-events history route)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from browser_agents import echo_agent, gated_agent
from server_support import AGENTS_DIR, read_sse, run_body
from ui_support import chat_texts, open_ui, send, session_hash, show_tab

from pyadk.server import AgentLoader, create_app

ANSWER = "Found 2 issues in your code. Fix the loop."
ANNOUNCEMENT = "Transferring you to the code reviewer."


def test_chat_streams_answer_and_thinking_panel_shows_tool_call(serve, page):
    server = serve(create_app(AGENTS_DIR, web_ui=True))
    open_ui(page, server.url, app="team")
    send(page, "x = 1")

    assert chat_texts(page, "user") == ["x = 1"]
    assert chat_texts(page) == [ANSWER]  # the orchestrator's handoff turn left no bubble
    bubble = page.locator("#chat .msg.agent")
    assert bubble.locator(".meta").inner_text() == "code_reviewer"
    assert int(bubble.get_attribute("data-deltas")) >= 2  # built from streamed deltas
    assert "final" in bubble.get_attribute("class")
    assert "streaming" not in bubble.get_attribute("class")
    assert "transfer" not in page.locator("#chat").inner_text().lower()

    thinking = page.locator("#thinking")
    hidden = thinking.locator(".entry.handoff_text")
    assert ANNOUNCEMENT in hidden.inner_text()
    assert "Handing off to code_reviewer" in thinking.locator(".entry.handoff").inner_text()
    taken = thinking.locator(".entry.agent[data-agent='code_reviewer']").inner_text()
    assert "took over from orchestrator" in taken and "Code review specialist" in taken
    tool = thinking.locator(".entry.tool")
    assert tool.count() == 1
    assert tool.get_attribute("data-agent") == "code_reviewer"
    assert "review_code" in tool.locator(".what").inner_text()
    assert '"code": "x = 1"' in tool.locator(".args pre").inner_text()
    result = tool.locator(".result-json pre").inner_text()
    assert '"issues": 2' in result and "2 issues in 'x = 1'" in result
    assert "Turn completed" in thinking.locator(".entry.done").inner_text()

    state = show_tab(page, "state")
    assert re.search(r"issues_found\s+2", state.inner_text())
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "completed"
    assert "orchestrator → code_reviewer" in invocation.inner_text()
    assert "tools: 1" in invocation.inner_text()
    timeline = show_tab(page, "timeline")
    types = timeline.locator(".row").evaluate_all("rows => rows.map(r => r.dataset.type)")
    assert types[0] == "agent_active" and types[-1] == "done"
    assert types.index("tool_start") < types.index("tool_end") < types.index("final")


def test_reload_finds_the_session_again(serve, page):
    server = serve(create_app(AGENTS_DIR, web_ui=True))
    open_ui(page, server.url, app="team")
    send(page, "x = 1")
    session_id = session_hash(page)["session"]

    page.reload()
    page.wait_for_selector("body[data-ready='true']")

    assert page.input_value("#app-select") == "team"
    assert page.input_value("#session-select") == session_id
    assert chat_texts(page, "user") == ["x = 1"]
    assert chat_texts(page) == [ANSWER]
    assert "transfer" not in page.locator("#chat").inner_text().lower()
    tool = page.locator("#thinking .entry.tool")
    assert '"code": "x = 1"' in tool.locator(".args pre").inner_text()
    assert '"issues": 2' in tool.locator(".result-json pre").inner_text()
    assert ANNOUNCEMENT in page.locator("#thinking .entry.handoff_text").inner_text()
    assert re.search(r"issues_found\s+2", show_tab(page, "state").inner_text())

    # a fresh page (no hash) offers the session in the picker
    open_ui(page, server.url, app="team")
    options = page.locator("#session-select option").evaluate_all("os => os.map(o => o.value)")
    assert session_id in options
    page.select_option("#session-select", session_id)
    page.wait_for_selector("#chat .msg.agent")
    assert chat_texts(page) == [ANSWER]


def test_text_appears_while_streaming_and_final_replaces_it(serve, page):
    gate = threading.Event()
    server = serve(create_app(agents={"oracle": gated_agent(gate)}, web_ui=True))
    try:
        open_ui(page, server.url, app="oracle")
        page.fill("#message", "question")
        page.click("#send")
        streaming = page.locator("#chat .msg.agent.streaming")
        streaming.wait_for()
        assert streaming.locator(".body").inner_text().strip() == "The answer is coming."
        assert page.locator("#chat .msg.agent.final").count() == 0
        assert page.is_enabled("#stop") and page.is_disabled("#send")
    finally:
        gate.set()
    page.wait_for_selector("body[data-sent='1']")
    bubble = page.locator("#chat .msg.agent")
    assert bubble.locator(".body").inner_text() == "The answer is coming. It is 42."
    assert bubble.get_attribute("data-deltas") == "2"
    assert "final" in bubble.get_attribute("class")
    assert page.is_enabled("#send")


def test_stop_cancels_the_run(serve, page):
    gate = threading.Event()
    server = serve(create_app(agents={"oracle": gated_agent(gate)}, web_ui=True))
    try:
        open_ui(page, server.url, app="oracle")
        page.fill("#message", "question")
        page.click("#send")
        page.locator("#chat .msg.agent.streaming").wait_for()
        page.click("#stop")
        page.wait_for_selector("body[data-sent='1']")
    finally:
        gate.set()
    assert "Turn cancelled" in page.locator("#thinking .entry.done.cancelled").inner_text()
    bubble = page.locator("#chat .msg.agent")
    assert "truncated" in bubble.get_attribute("class")
    assert bubble.locator(".body").inner_text().strip() == "The answer is coming."
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "cancelled"


def test_a_busy_session_shows_the_conflict_and_keeps_the_session(serve, page):
    gate = threading.Event()
    server = serve(create_app(agents={"oracle": gated_agent(gate)}, web_ui=True))
    client = server.client()
    client.post("/apps/oracle/users/alice/sessions/s1")
    body = run_body("oracle", "alice", "s1", "first question")
    try:
        with client.stream("POST", "/run_ui_events", json=body) as running:
            assert running.status_code == 200  # this turn holds s1 until the gate opens
            open_ui(page, server.url, app="oracle", session="s1")
            send(page, "second question")
            errors = chat_texts(page, "error")
            meta = page.locator("#chat .msg.error .meta").inner_text()
            gate.set()
            assert read_sse(running.iter_lines()).messages[-1].json()["reason"] == "completed"
    finally:
        gate.set()

    assert len(errors) == 1 and "Session 's1' is busy" in errors[0]
    assert "HTTP 409" in meta
    assert page.is_enabled("#send")  # the page is usable again
    stored = client.get("/apps/oracle/users/alice/sessions/s1").json()["events"]
    users = [e["content"]["parts"][0]["text"] for e in stored if e["author"] == "user"]
    assert users == ["first question"]  # the refused message was not written


def test_markup_in_messages_and_tool_args_is_shown_as_text(serve, page):
    server = serve(create_app(agents={"echo": echo_agent()}, web_ui=True))
    open_ui(page, server.url, app="echo")
    payload = '<img src=x onerror="document.title=1"><b>bold</b>'
    send(page, payload)

    assert chat_texts(page, "user") == [payload]
    assert chat_texts(page) == [f"Stored: {payload}"]
    assert page.locator("img").count() == 0 and page.locator("#chat b").count() == 0
    assert payload.replace('"', '\\"') in page.locator("#thinking .args pre").inner_text()
    assert payload in show_tab(page, "state").inner_text()
    assert page.locator("img, b").count() == 0
    assert page.title() == "pyadk dev UI"


def test_new_session_and_switching_sessions(serve, page):
    server = serve(create_app(AGENTS_DIR, web_ui=True))
    open_ui(page, server.url, app="chat")
    send(page, "first")
    first = session_hash(page)["session"]

    page.click("#new-session")
    page.wait_for_selector("#chat .hint")
    second = session_hash(page)["session"]
    assert second != first
    assert page.input_value("#session-select") == second
    send(page, "second")
    assert chat_texts(page) == ["Hello there. You said: second"]

    page.select_option("#session-select", first)
    page.wait_for_selector("#chat .msg.user")
    assert chat_texts(page, "user") == ["first"]
    assert chat_texts(page) == ["Hello there. You said: first"]
    assert session_hash(page)["session"] == first


def test_failed_run_shows_the_error(serve, page):
    server = serve(create_app(AGENTS_DIR, web_ui=True))
    open_ui(page, server.url, app="failing")
    send(page, "look it up")

    errors = chat_texts(page, "error")
    assert errors == ["model backend exploded"]
    assert "RuntimeError" in page.locator("#chat .msg.error .meta").inner_text()
    interim = page.locator("#chat .msg.agent")
    assert interim.locator(".body").inner_text().strip() == "Let me look that up."
    assert "interim" in interim.get_attribute("class")
    assert "Turn failed" in page.locator("#thinking .entry.done.error").inner_text()
    assert '"found": "x"' in page.locator("#thinking .entry.tool .result-json pre").inner_text()
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "error"
    assert "model backend exploded" in invocation.inner_text()


def test_token_protected_server_asks_for_the_token(serve, page):
    server = serve(create_app(AGENTS_DIR, auth_token="s3cret", web_ui=True))
    page.goto(f"{server.url}/dev-ui/#app=chat&user=alice")
    page.wait_for_selector("#token-box:not([hidden])")
    assert "needs a bearer token" in page.inner_text("#status")

    page.fill("#token-input", "wrong")
    page.click("#token-save")
    page.wait_for_selector("#token-box:not([hidden])")
    assert "needs a bearer token" in page.inner_text("#status")
    assert page.get_attribute("body", "data-ready") is None
    page.fill("#token-input", "s3cret")
    page.click("#token-save")
    page.wait_for_selector("body[data-ready='true']")
    assert page.is_hidden("#token-box")
    send(page, "hi")
    assert chat_texts(page) == ["Hello there. You said: hi"]


def test_vana_example_in_the_web_ui(serve, page, monkeypatch):
    monkeypatch.setenv("VANA_MODEL", "offline")
    vana_dir = Path(__file__).resolve().parents[2] / "examples" / "vana"
    AgentLoader(vana_dir).invalidate("vana")  # import it now, with VANA_MODEL set
    server = serve(create_app(vana_dir, web_ui=True))
    open_ui(page, server.url, app="vana")
    send(page, "Full review please:\npassword = 'hunter22'\nif user == None:\n    print(user)")

    agents = page.locator("#chat .msg.agent .meta").all_inner_texts()
    assert agents == ["code_review_step", "security_scan_step", "review_report"]
    assert chat_texts(page)[-1].endswith("Verdict: not ready: remove the secrets first.")
    assert "handing off" not in page.locator("#chat").inner_text().lower()
    thinking = page.locator("#thinking")
    assert "full review workflow" in thinking.locator(".entry.handoff_text").inner_text()
    tools = thinking.locator(".entry.tool")
    assert tools.locator(".what code").all_inner_texts() == ["review_code", "scan_for_secrets"]
    long_result = tools.first.locator("details.result-json")
    assert long_result.get_attribute("open") is None  # long results start collapsed...
    assert '{"lines":3,"issue_count":2' in long_result.locator("summary").inner_text()
    long_result.locator("summary").click()  # ...and open on a click
    assert '"none-comparison": 1' in long_result.locator("pre").inner_text()
    AgentLoader(vana_dir).invalidate("vana")
