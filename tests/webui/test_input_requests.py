"""Input requests in the web dev UI (real headless Chromium, real server): a graph
workflow node's ``RequestInput`` shows a card with the question and a form (a text
field, a number field, a field per property, or a JSON field); the answer, sent as the
next turn, resumes the workflow and replaces the form; an answer the workflow refuses
shows why on the card, which can be answered again; a reload shows the answered card."""

from __future__ import annotations

from typing import Any

from ui_support import chat_texts, open_ui, send, show_tab

from pyadk import types
from pyadk.events import Event
from pyadk.server import create_app
from pyadk.workflow import START, RequestInput, Workflow, node


def say(text: str) -> Event:
    """A chat message of the workflow."""
    return Event(author="booking", content=types.ModelContent(text))


def booking_workflow(booked: list[Any]) -> Workflow:
    """Asks a name (any text), then how many seats (an integer), then books."""

    def name(node_input: types.Content) -> RequestInput:
        return RequestInput(message="Your name?")

    def seats(node_input: str) -> RequestInput:
        return RequestInput(message=f"How many seats, {node_input}?", response_schema=int)

    def book(node_input: int) -> Any:
        booked.append(node_input)
        yield say(f"Booked {node_input} seats.")
        yield node_input

    return Workflow(name="booking", edges=[(START, name, seats, book)])


def one_node_workflow(schema: Any, got: list[Any]) -> Workflow:
    """Asks one question of ``schema`` and says what it got."""

    def ask(node_input: types.Content) -> RequestInput:
        return RequestInput(message="Your plan?", response_schema=schema, payload={"hint": "x"})

    @node(name="record")
    def record(node_input: Any) -> Any:
        got.append(node_input)
        yield say(f"Got {node_input!r}.")
        yield "ok"

    return Workflow(name="booking", edges=[(START, ask, record)])


def submit(page: Any, card: Any) -> None:
    """Sends the card's form and waits until the turn is over."""
    before = int(page.get_attribute("body", "data-sent") or 0)
    card.locator("button.answer-submit").click()
    page.wait_for_selector(f"body[data-sent='{before + 1}']")


def test_a_text_then_a_number_are_asked_answered_and_the_workflow_finishes(serve, page):
    booked: list[Any] = []
    server = serve(create_app(agents={"booking": booking_workflow(booked)}, web_ui=True))
    open_ui(page, server.url, app="booking")
    send(page, "book a table")

    assert page.locator("#chat .msg.input").count() == 1
    card = page.locator("#chat .msg.input").first
    assert card.get_attribute("data-state") == "pending"
    assert card.locator(".what").inner_text() == "Your name?"
    assert "name" in card.locator(".meta").inner_text()
    field = card.locator(".answer-field")
    assert field.get_attribute("type") == "text" and field.is_enabled()
    assert "adk_request_input" not in page.locator("#chat").inner_text()
    assert page.inner_text("#status") == "Waiting for your input (1 request)"
    invocation = show_tab(page, "invocations").locator(".invocation")
    assert invocation.get_attribute("data-status") == "waiting"
    assert "input asked: name" in invocation.inner_text()

    field.fill("Ada")
    submit(page, card)

    assert card.get_attribute("data-state") == "answered"
    assert card.locator("form").is_hidden()
    assert card.locator(".answer-text").inner_text().endswith("Ada")
    second = page.locator("#chat .msg.input").nth(1)
    assert second.locator(".what").inner_text() == "How many seats, Ada?"
    number = second.locator(".answer-field")
    assert number.get_attribute("type") == "number" and number.get_attribute("step") == "1"

    second.locator("button.answer-submit").click()  # empty: told at once, nothing sent
    assert second.locator(".input-error").inner_text() == "type a whole number."
    number.fill("3")
    submit(page, second)

    assert booked == [3]
    assert second.get_attribute("data-state") == "answered"
    assert chat_texts(page, "user") == ["book a table", "Ada", "3"]
    assert chat_texts(page)[-1] == "Booked 3 seats."
    assert chat_texts(page, "error") == []
    assert page.inner_text("#status") == "Ready"

    # a reload rebuilds the answered cards from the session's history
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    cards = page.locator("#chat .msg.input")
    assert cards.count() == 2
    assert [cards.nth(i).get_attribute("data-state") for i in range(2)] == ["answered"] * 2
    assert cards.nth(1).locator(".answer-text").inner_text().endswith("3")
    assert chat_texts(page)[-1] == "Booked 3 seats."


def test_a_refused_json_answer_shows_why_and_the_card_can_be_answered_again(serve, page):
    got: list[Any] = []
    workflow = one_node_workflow({"type": "array", "items": {"type": "string"}}, got)
    server = serve(create_app(agents={"booking": workflow}, web_ui=True))
    open_ui(page, server.url, app="booking")
    send(page, "plan a trip")
    card = page.locator("#chat .msg.input")
    field = card.locator("textarea.answer-field")
    assert card.get_attribute("data-schema") == "array"
    assert '"type": "array"' in card.locator(".schema pre").text_content()
    assert '"hint": "x"' in card.locator(".payload pre").text_content()

    field.fill("[1,")  # not JSON: told at once, nothing sent
    card.locator("button.answer-submit").click()
    assert card.locator(".input-error").inner_text() == "not valid JSON."
    assert page.get_attribute("body", "data-sent") == "1"

    field.fill('{"city": "Rome"}')  # JSON, but not a list: the workflow refuses it
    submit(page, card)

    assert got == []
    assert card.get_attribute("data-state") == "pending"
    assert "does not fit the requested input" in card.locator(".input-error").inner_text()
    assert field.is_enabled() and card.locator("button.answer-submit").is_enabled()
    assert "InputAnswerError" in page.locator("#chat .msg.error .meta").inner_text()

    field.fill('["Rome", "Pisa"]')
    submit(page, card)

    assert got == [["Rome", "Pisa"]]
    assert card.get_attribute("data-state") == "answered"
    assert card.locator(".answer-text").inner_text().endswith('["Rome","Pisa"]')
    assert chat_texts(page)[-1] == "Got ['Rome', 'Pisa']."

    # a reload: the refused answer is in the history, the card shows the good one
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    card = page.locator("#chat .msg.input")
    assert card.count() == 1 and card.get_attribute("data-state") == "answered"
    assert chat_texts(page, "user") == ["plan a trip", '{"city":"Rome"}', '["Rome","Pisa"]']


def test_an_object_of_scalars_gets_a_field_per_property(serve, page):
    got: list[Any] = []
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "title": "City"},
            "nights": {"type": "integer"},
            "breakfast": {"type": "boolean"},
        },
        "required": ["city", "nights"],
    }
    server = serve(create_app(agents={"booking": one_node_workflow(schema, got)}, web_ui=True))
    open_ui(page, server.url, app="booking")
    send(page, "plan a stay")
    card = page.locator("#chat .msg.input")
    labels = card.locator("form label").all_inner_texts()
    assert [label.split("\n")[0].strip() for label in labels] == ["City:", "nights:", "breakfast:"]

    card.locator("input[aria-label=city]").fill("Oslo")
    card.locator("input[aria-label=nights]").fill("2")
    card.locator("select[aria-label=breakfast]").select_option("true")
    submit(page, card)

    assert got == [{"city": "Oslo", "nights": 2, "breakfast": True}]
    assert card.get_attribute("data-state") == "answered"
    assert chat_texts(page, "user")[-1] == '{"city":"Oslo","nights":2,"breakfast":true}'
