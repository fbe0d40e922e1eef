"""pyadk.utils.fast_models: construction, update and deep copy without validation."""

from __future__ import annotations

from pyadk import types
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.models import LlmResponse
from pyadk.utils.fast_models import construct, copy_model, copy_value, updated


def test_construct_fills_defaults_and_marks_only_given_fields_set() -> None:
    event = construct(Event, author="a", invocation_id="i")

    assert event == Event(author="a", invocation_id="i", id=event.id, timestamp=event.timestamp)
    assert event.model_fields_set == {"author", "invocation_id"}
    assert isinstance(event.actions, EventActions)
    assert construct(Event).actions is not construct(Event).actions  # fresh factories


def test_updated_keeps_the_template_and_marks_the_update_set() -> None:
    template = construct(Event, author="a", invocation_id="i")
    content = types.Content(role="model", parts=[types.Part(text="hi")])

    event = updated(template, None, {"content": content, "partial": True})

    assert type(event) is Event
    assert (event.author, event.id, event.content, event.partial) == (
        "a",
        template.id,
        content,
        True,
    )
    assert event.model_fields_set == {"author", "invocation_id", "content", "partial"}
    assert template.content is None and template.partial is None  # template unchanged
    assert event.actions is template.actions  # values are shared, not copied


def test_copy_model_shares_nothing_mutable() -> None:
    event = construct(
        Event,
        author="a",
        content=types.Content(role="user", parts=[types.Part(text="x")]),
        actions=construct(EventActions, state_delta={"k": [1, 2]}),
    )

    copy = copy_model(event)

    assert copy == event and copy.model_fields_set == event.model_fields_set
    copy.actions.state_delta["k"].append(3)
    copy.content.parts.append(types.Part(text="y"))  # type: ignore[union-attr]
    assert event.actions.state_delta == {"k": [1, 2]}
    assert len(event.content.parts) == 1  # type: ignore[union-attr]


def test_updated_takes_the_set_fields_of_a_source_model() -> None:
    template = construct(Event, author="a", invocation_id="i")
    response = LlmResponse(content=types.ModelContent("hi"), partial=True)

    event = updated(template, response, {"id": "e-1"})

    assert (event.content, event.partial, event.id, event.author) == (
        response.content,
        True,
        "e-1",
        "a",
    )
    assert event.turn_complete is None  # not set on the source: the template's value
    assert event.model_fields_set == {"author", "invocation_id", "content", "partial", "id"}


def test_copy_value_copies_containers_of_leaves_and_deep_copies_others() -> None:
    flat = {"a": "x", "b": 1, "c": None}
    nested = {"a": [1, 2], "b": bytearray(b"x"), "c": {"d": "e"}}
    for value in (flat, nested, [1, "a"], [[1], {"a": 1}]):
        copied = copy_value(value)
        assert copied == value and type(copied) is type(value) and copied is not value
    copied = copy_value(nested)
    assert copied["a"] is not nested["a"] and copied["c"] is not nested["c"]
    assert type(copied["b"]) is bytearray and copied["b"] is not nested["b"]
