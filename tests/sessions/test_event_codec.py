"""The compact encoding the in-memory session service stores events in: exact round trips.

An event comes back equal, of the same classes, with the same ``model_fields_set``
everywhere in its tree, and sharing nothing mutable with the event it was encoded from
or with other decodes of it.
"""

from __future__ import annotations

import datetime
import enum
import math
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from pyadk import types
from pyadk.events import Event, EventActions
from pyadk.events.outcome import AgentOutcome, OutcomeStatus
from pyadk.sessions._event_codec import Aside, decode, encode, field_of


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Ticket(BaseModel):
    """A user model, as an ``output_schema`` answer stored in state."""

    title: str
    tags: list[str] = []
    priority: Priority = Priority.LOW


class WithPrivate(BaseModel):
    name: str
    _seen: int = PrivateAttr(default=0)


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


class Point:
    """A value marshal cannot hold: kept aside, deep-copied."""

    def __init__(self, x: int, y: list[int]) -> None:
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    __hash__ = None  # type: ignore[assignment]


def fields_sets(value: Any) -> Any:
    """Every model in ``value`` as (class, fields set, its values' fields sets)."""
    if isinstance(value, BaseModel):
        return (
            type(value),
            frozenset(value.model_fields_set),
            tuple((k, fields_sets(v)) for k, v in sorted(value.__dict__.items())),
        )
    if isinstance(value, dict):
        return tuple((repr(k), fields_sets(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(fields_sets(v) for v in value))
    return type(value)


def assert_exact(decoded: Any, original: Any) -> None:
    assert decoded == original
    assert fields_sets(decoded) == fields_sets(original)


def roundtrip(event: Event) -> Event:
    decoded = decode(encode(event), Event)
    assert_exact(decoded, event)
    return decoded


def test_a_text_event_keeps_its_classes_and_fields_set_and_is_smaller_than_json():
    event = Event(
        author="user", invocation_id="e-1", content=types.UserContent("What is the answer?")
    )
    decoded = roundtrip(event)
    assert type(decoded.content) is types.UserContent
    assert "id" not in decoded.model_fields_set  # filled by its default factory
    assert decoded.id == event.id and decoded.timestamp == event.timestamp
    assert len(encode(event)) < len(event.model_dump_json(exclude_none=True))


def test_fields_set_explicitly_to_their_default_stay_set():
    event = Event(author="a", partial=None, branch=None, actions=EventActions(escalate=None))
    decoded = roundtrip(event)
    assert {"partial", "branch", "actions"} <= decoded.model_fields_set
    assert decoded.actions.model_fields_set == {"escalate"}


def test_assignments_after_construction_are_kept():
    event = Event(author="a")
    event.branch = "root.child"  # pydantic marks it set
    event.actions.state_delta["k"] = 1  # a mutation: nothing marked
    decoded = roundtrip(event)
    assert decoded.branch == "root.child" and "branch" in decoded.model_fields_set
    assert decoded.actions.state_delta == {"k": 1}


def test_function_calls_responses_bytes_and_unicode_come_back_unchanged():
    event = Event(
        author="bot",
        content=types.Content(
            role="model",
            parts=[
                types.Part(text="héllo wörld ✓ 你好 🙂 \u0301 \ud800", thought=True),
                types.Part(
                    function_call=types.FunctionCall(
                        id="call-1",
                        name="lookup",
                        args={"q": "naïve", "n": 3, "ratio": 0.1, "deep": {"l": [1, None, True]}},
                    ),
                    thought_signature=b"\x00\xff\xfe signature",
                ),
                types.Part(
                    function_response=types.FunctionResponse(
                        id="call-1", name="lookup", response={"result": ["a", "b"], "ok": True}
                    )
                ),
                types.Part(inline_data=types.Blob(mime_type="image/png", data=bytes(range(256)))),
                types.Part.from_uri(file_uri="gs://bucket/file.pdf", mime_type="application/pdf"),
                types.Part(
                    code_execution_result=types.CodeExecutionResult(
                        outcome=types.Outcome.OUTCOME_OK, output="42"
                    )
                ),
            ],
        ),
        finish_reason=types.FinishReason.STOP,
        usage_metadata=types.UsageMetadata(prompt_token_count=7, total_token_count=9),
        long_running_tool_ids={"call-1"},
    )
    decoded = roundtrip(event)
    parts = decoded.content.parts
    assert parts[0].text == "héllo wörld ✓ 你好 🙂 \u0301 \ud800"
    assert parts[1].thought_signature == b"\x00\xff\xfe signature"
    assert parts[3].inline_data.data == bytes(range(256))
    assert decoded.finish_reason is types.FinishReason.STOP
    assert parts[5].code_execution_result.outcome is types.Outcome.OUTCOME_OK
    assert decoded.long_running_tool_ids == {"call-1"}


def test_actions_and_state_values_of_every_kind_come_back_unchanged():
    when = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.UTC)
    delta = {
        "app:greeting": "hi",
        "user:visits": 2**80,
        "nested": {"list": [1, 2.5, "x", None], "empty": {}},
        "tuple": (1, ("a", b"b"), [3]),
        "set": {1, 2, 3},
        "frozen": frozenset({"a"}),
        "int keys": {1: "one", None: "none", b"k": 2.0},
        "tuple keys": {(1, 2): "pair"},
        "enum": Priority.HIGH,
        "str enum": OutcomeStatus.FAILURE,
        "when": when,
        "point": Point(1, [2, 3]),
        "ticket": Ticket(title="Broken build", tags=["ci"]),
        "floats": [-0.0, math.inf, -math.inf, 1e-310],
    }
    event = Event(
        author="bot",
        actions=EventActions(
            state_delta=delta,
            artifact_delta={"report.pdf": 3},
            transfer_to_agent="helper",
            escalate=True,
            skip_summarization=True,
            requested_auth_configs={"call-9": {"scheme": "oauth2"}},
            end_of_agent=True,
            agent_outcome=AgentOutcome(
                agent="bot", status=OutcomeStatus.FAILURE, reason="tool failed"
            ),
        ),
        custom_metadata={"trace": ("t", 1)},
    )
    decoded = roundtrip(event)
    got = decoded.actions.state_delta
    assert type(got["tuple"]) is tuple and type(got["tuple"][1]) is tuple
    assert type(got["set"]) is set and type(got["frozen"]) is frozenset
    assert got["enum"] is Priority.HIGH and got["str enum"] is OutcomeStatus.FAILURE
    assert got["when"] == when and got["point"] == Point(1, [2, 3])
    assert type(got["ticket"]) is Ticket and got["ticket"].priority is Priority.LOW
    assert math.copysign(1.0, got["floats"][0]) == -1.0
    assert decoded.actions.agent_outcome.status is OutcomeStatus.FAILURE
    assert list(got) == list(delta)  # key order kept


def test_nan_comes_back_as_nan():
    decoded = decode(encode(Event(author="a", custom_metadata={"x": math.nan})), Event)
    assert math.isnan(decoded.custom_metadata["x"])


def test_models_with_private_attributes_or_extra_fields_are_deep_copied_whole():
    private = WithPrivate(name="p")
    private._seen = 5
    extra = Open(name="o", colour="red")
    event = Event(author="a", custom_metadata={"private": private, "extra": extra})
    encoded = encode(event)
    assert isinstance(encoded, Aside)
    decoded = decode(encoded, Event)
    got_private, got_extra = decoded.custom_metadata["private"], decoded.custom_metadata["extra"]
    assert got_private._seen == 5 and got_private is not private
    assert got_extra.colour == "red" and got_extra.model_extra == {"colour": "red"}


def test_decodes_share_nothing_with_the_original_or_with_each_other():
    original = Event(
        author="a",
        content=types.ModelContent("text"),
        actions=EventActions(state_delta={"k": {"v": [1]}, "point": Point(0, [0])}),
    )
    encoded = encode(original)
    original.content.parts[0].text = "changed"
    original.actions.state_delta["k"]["v"].append(2)
    original.actions.state_delta["point"].y.append(1)

    first = decode(encoded, Event)
    assert first.content.text == "text"
    assert first.actions.state_delta["k"] == {"v": [1]}
    assert first.actions.state_delta["point"] == Point(0, [0])
    first.actions.state_delta["k"]["v"].append(3)
    first.actions.state_delta["point"].y.append(3)
    first.actions.model_fields_set.add("escalate")

    second = decode(encoded, Event)
    assert second.actions.state_delta["k"] == {"v": [1]}
    assert second.actions.state_delta["point"] == Point(0, [0])
    assert "escalate" not in second.actions.model_fields_set


def test_field_of_reads_one_field_without_decoding_the_event():
    event = Event(author="a", timestamp=123.5, custom_metadata={"p": Point(1, [1])})
    assert field_of(encode(event), Event, "timestamp") == 123.5
    assert field_of(encode(Event(author="b", timestamp=7.0)), Event, "timestamp") == 7.0
    assert field_of(encode(Event(author="b")), Event, "branch") is None


def test_decoding_as_the_wrong_class_is_refused():
    with pytest.raises(TypeError, match="not a Event"):
        decode(encode(types.Content(role="user")), Event)


def test_a_plain_field_holding_a_value_its_annotation_does_not_admit_still_round_trips():
    # Event fields are not validated on assignment: a ``str | None`` field may be given
    # anything. marshal refuses such values, and the event is encoded value by value.
    event = Event(author="a", content=types.ModelContent("hi"))
    event.branch = Point(1, [2])  # type: ignore[assignment]
    event.error_code = Priority.HIGH  # type: ignore[assignment]
    event.content.parts[0].text = Ticket(title="t")  # type: ignore[assignment]
    decoded = roundtrip(event)
    assert decoded.branch == Point(1, [2]) and decoded.branch is not event.branch
    assert decoded.error_code is Priority.HIGH
    assert type(decoded.content.parts[0].text) is Ticket
    assert field_of(encode(event), Event, "branch") == Point(1, [2])


def test_a_plain_field_holding_a_tuple_or_containers_comes_back_as_it_was():
    event = Event(author="a", long_running_tool_ids={"c-1", "c-2"})
    event.model_version = ("m", 1)  # type: ignore[assignment]
    decoded = roundtrip(event)
    assert decoded.model_version == ("m", 1)
    assert decoded.long_running_tool_ids == {"c-1", "c-2"}
    assert decoded.long_running_tool_ids is not event.long_running_tool_ids
