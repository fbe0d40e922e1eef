"""A graph workflow's approval in the web dev UI (real headless Chromium, real server): a
ToolNode whose tool has ``require_confirmation`` (or a function node with it) asks with
an Approve / Reject card like a tool call's, not a JSON form; Approve runs the tool once
and the workflow finishes, Reject never runs it; a reload shows the answered card; an
ordinary ``RequestInput`` still gets its form."""

from __future__ import annotations

from typing import Any

from ui_support import chat_texts, click_and_wait, open_ui, send, show_tab

from pyadk import types
from pyadk.events import Event
from pyadk.server import create_app
from pyadk.tools import FunctionTool
from pyadk.workflow import START, RequestInput, Workflow, node


def say(text: str) -> Event:
    return Event(author="payments", content=types.ModelContent(text))


def payments_workflow(paid: list[int]) -> Workflow:
    """Reads the invoice, pays it (a tool needing approval), then says how it went."""

    def invoice(node_input: types.Content) -> dict[str, int]:
        return {"amount": 900}

    def pay(amount: int) -> dict[str, Any]:
        paid.append(amount)
        return {"status": "paid", "amount": amount}

    def report(node_input: dict[str, Any]) -> Any:
        text = "Paid." if node_input.get("status") == "paid" else "Not paid: rejected."
        yield say(text)
        yield text

    tool = FunctionTool(pay, require_confirmation=True)
    return Workflow(name="payments", edges=[(START, invoice, tool, report)])


def ask(serve: Any, page: Any, workflow: Workflow) -> Any:
    server = serve(create_app(agents={"payments": workflow}, web_ui=True))
    open_ui(page, server.url, app="payments")
    send(page, "pay the invoice")
    return page.locator("#chat .msg.approval")


def test_approve_runs_the_tool_once_and_the_workflow_finishes(serve, page):
    paid: list[int] = []
    card = ask(serve, page, payments_workflow(paid))

    assert card.count() == 1 and paid == []
    assert page.locator("#chat .msg.input").count() == 0  # no JSON form
    assert card.get_attribute("data-state") == "pending"
    assert card.get_attribute("data-kind") == "workflow"
    assert card.locator(".what code").inner_text() == "pay"
    assert card.locator(".why").inner_text() == "Approve or reject pay()."
    assert '"amount": 900' in card.locator(".args pre").inner_text()
    assert "pay" in card.locator(".meta").inner_text()
    assert card.locator("button.approve").is_enabled()
    assert "adk_request_input" not in page.locator("#chat").inner_text()
    assert page.inner_text("#status") == "Waiting for your approval (1 tool call)"
    asked = page.locator("#thinking .entry.approval")
    assert asked.get_attribute("data-approval") == "waiting"
    assert "waiting for approval" in asked.locator(".result").inner_text()
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "waiting"
    assert "approval asked: pay" in invocation.inner_text()
    timeline = show_tab(page, "timeline").inner_text()
    assert 'pay({"amount":900}) needs approval' in timeline

    click_and_wait(page, card, "approve")

    assert paid == [900]  # the tool ran, once
    assert card.get_attribute("data-state") == "approved"
    assert card.locator(".decision").inner_text() == "Approved"
    assert card.locator("button.approve").is_disabled()
    assert card.locator("button.reject").is_disabled()
    assert chat_texts(page, "user") == ["pay the invoice", "Approved pay"]
    assert chat_texts(page) == ["Paid."]
    assert chat_texts(page, "error") == []
    assert asked.get_attribute("data-approval") == "approved"
    assert page.inner_text("#status") == "Ready"
    invocations = show_tab(page, "invocations").locator(".invocation")
    statuses = invocations.evaluate_all("cards => cards.map(c => c.dataset.status)")
    assert statuses[0] == "waiting" and statuses[-1] == "completed"

    # a reload rebuilds the answered card from the session's history
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator("#chat .msg.approval")
    assert card.count() == 1 and card.get_attribute("data-state") == "approved"
    assert card.locator(".decision").inner_text() == "Approved"
    assert card.locator("button.approve").is_disabled()
    assert page.locator("#chat .msg.input").count() == 0
    assert chat_texts(page, "user") == ["pay the invoice", "Approved pay"]
    assert chat_texts(page) == ["Paid."]
    assert page.locator("#thinking .entry.approval").get_attribute("data-approval") == "approved"
    assert paid == [900]


def test_reject_never_runs_the_tool_and_the_workflow_goes_on(serve, page):
    paid: list[int] = []
    card = ask(serve, page, payments_workflow(paid))

    click_and_wait(page, card, "reject")

    assert paid == []
    assert card.get_attribute("data-state") == "rejected"
    assert card.locator(".decision").inner_text() == "Rejected"
    assert card.locator("button.approve").is_disabled()
    assert chat_texts(page, "user") == ["pay the invoice", "Rejected pay"]
    assert chat_texts(page) == ["Not paid: rejected."]
    assert page.locator("#thinking .entry.approval").get_attribute("data-approval") == "rejected"
    assert page.inner_text("#status") == "Ready"

    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator("#chat .msg.approval")
    assert card.get_attribute("data-state") == "rejected"
    assert chat_texts(page, "user") == ["pay the invoice", "Rejected pay"]


def test_a_function_node_asks_with_its_name_and_arguments(serve, page):
    deleted: list[str] = []

    @node(require_confirmation=True)
    def delete(node_input: types.Content, folder: str = "/tmp") -> str:
        deleted.append(folder)
        return f"deleted {folder}"

    def report(node_input: str) -> Any:
        yield say(node_input)
        yield node_input

    workflow = Workflow(name="payments", edges=[(START, delete, report)])
    card = ask(serve, page, workflow)
    assert card.locator(".what code").inner_text() == "delete"
    assert '"folder": "/tmp"' in card.locator(".args pre").inner_text()

    click_and_wait(page, card, "approve")

    assert deleted == ["/tmp"]
    assert chat_texts(page, "user")[-1] == "Approved delete"
    assert chat_texts(page) == ["deleted /tmp"]


def test_an_ordinary_request_for_input_keeps_its_form(serve, page):
    got: list[Any] = []

    def question(node_input: types.Content) -> RequestInput:
        return RequestInput(message="Any notes?", response_schema=dict)

    def record(node_input: Any) -> Any:
        got.append(node_input)
        yield say("Noted.")
        yield "ok"

    workflow = Workflow(name="payments", edges=[(START, question, record)])
    server = serve(create_app(agents={"payments": workflow}, web_ui=True))
    open_ui(page, server.url, app="payments")
    send(page, "start")

    assert page.locator("#chat .msg.approval").count() == 0
    card = page.locator("#chat .msg.input")
    assert card.count() == 1 and card.locator(".what").inner_text() == "Any notes?"
    card.locator("textarea.answer-field").fill('{"confirmed": true}')
    before = int(page.get_attribute("body", "data-sent") or 0)
    card.locator("button.answer-submit").click()
    page.wait_for_selector(f"body[data-sent='{before + 1}']")

    assert got == [{"confirmed": True}]
    assert card.get_attribute("data-state") == "answered"
    assert chat_texts(page, "user")[-1] == '{"confirmed":true}'
