"""Tool approval in the web dev UI (real headless Chromium, real server): the turn
that needs approval shows a card with the tool, its arguments and the hint; Approve
sends the answer as the next turn and the tool runs; Reject and it never runs; a reload
shows the answered card."""

from __future__ import annotations

from typing import Any

from browser_agents import approval_agent
from ui_support import chat_texts, click_and_wait, open_ui, send, show_tab

from pyadk.server import create_app

HINT = "Approve or reject pay(amount=900)."


def ask(serve: Any, page: Any, paid: list[int]) -> Any:
    """Opens the UI on the payments agent and sends the request; returns the card."""
    server = serve(create_app(agents={"payments": approval_agent(paid)}, web_ui=True))
    open_ui(page, server.url, app="payments")
    send(page, "pay the invoice")
    return page.locator("#chat .msg.approval")


def test_approve_runs_the_tool_and_the_turn_goes_on(serve, page):
    paid: list[int] = []
    card = ask(serve, page, paid)

    assert card.count() == 1 and paid == []
    assert card.get_attribute("data-state") == "pending"
    assert card.locator(".what code").inner_text() == "pay"
    assert card.locator(".why").inner_text() == HINT
    assert '"amount": 900' in card.locator(".args pre").inner_text()
    assert card.locator("button.approve").is_enabled()
    assert card.locator("button.reject").is_enabled()
    assert chat_texts(page) == ["Let me pay that."]  # the interim text, no answer yet
    assert "adk_request_confirmation" not in page.locator("#chat").inner_text()
    waiting = page.locator("#thinking .entry.tool")
    assert waiting.count() == 1 and waiting.get_attribute("data-approval") == "waiting"
    assert "waiting for approval" in waiting.locator(".result").inner_text()
    assert "failed" not in waiting.get_attribute("class")  # waiting is not an error
    assert "Waiting for your approval" in page.inner_text("#status")
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "waiting"

    click_and_wait(page, card, "approve")

    assert paid == [900]  # the tool really ran, once
    assert card.get_attribute("data-state") == "approved"
    assert card.locator(".decision").inner_text() == "Approved"
    assert card.locator("button.approve").is_disabled()
    assert card.locator("button.reject").is_disabled()
    assert chat_texts(page, "user") == ["pay the invoice", "Approved pay"]
    assert chat_texts(page) == ["Let me pay that.", "Paid 900 euros. Receipt sent."]
    answer = page.locator("#chat .msg.agent").last
    assert int(answer.get_attribute("data-deltas")) == 2  # the resumed turn streamed
    tools = page.locator("#thinking .entry.tool")
    assert tools.count() == 2  # the waiting call (turn 1) and its result (turn 2)
    assert tools.first.get_attribute("data-approval") == "approved"
    assert "approved: ran in a later turn" in tools.first.locator(".result").inner_text()
    result = page.locator("#thinking .turn").nth(1).locator(".entry.tool")
    assert "approved, ran pay" in result.locator(".what").inner_text()
    assert '"status": "paid"' in result.locator(".result-json pre").inner_text()
    assert "failed" not in result.get_attribute("class")
    assert "Turn completed" in page.locator("#thinking .turn").nth(1).inner_text()
    invocations = show_tab(page, "invocations").locator(".invocation")
    assert invocations.evaluate_all("cards => cards.map(c => c.dataset.status)") == [
        "waiting",
        "completed",
    ]

    # a reload rebuilds the answered card from the session's history
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator("#chat .msg.approval")
    assert card.get_attribute("data-state") == "approved"
    assert card.locator("button.approve").is_disabled()
    assert chat_texts(page, "user") == ["pay the invoice", "Approved pay"]
    assert chat_texts(page)[-1] == "Paid 900 euros. Receipt sent."
    assert page.locator("#thinking .entry.tool").first.get_attribute("data-approval") == "approved"


def test_reject_never_runs_the_tool(serve, page):
    paid: list[int] = []
    card = ask(serve, page, paid)

    click_and_wait(page, card, "reject")

    assert paid == []  # the tool did not run
    assert card.get_attribute("data-state") == "rejected"
    assert card.locator(".decision").inner_text() == "Rejected"
    assert card.locator("button.approve").is_disabled()
    assert chat_texts(page, "user") == ["pay the invoice", "Rejected pay"]
    assert chat_texts(page)[-1] == "I did not pay. The payment was rejected."
    result = page.locator("#thinking .turn").nth(1).locator(".entry.tool")
    assert "rejected, did not run pay" in result.locator(".what").inner_text()
    assert "declined" in result.get_attribute("class")
    assert "rejected" in result.locator(".result-json summary").inner_text()
    assert "This tool call is rejected." in result.locator(".result-json pre").inner_text()
    assert page.locator("#thinking .entry.tool").first.get_attribute("data-approval") == "rejected"
    assert page.inner_text("#status") == "Ready"


def test_a_pending_approval_can_be_answered_after_a_reload(serve, page):
    paid: list[int] = []
    card = ask(serve, page, paid)
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator("#chat .msg.approval")
    assert card.get_attribute("data-state") == "pending"
    assert card.locator("button.approve").is_enabled()

    click_and_wait(page, card, "approve")

    assert paid == [900]
    assert chat_texts(page)[-1] == "Paid 900 euros. Receipt sent."
