"""The compact encoding the in-memory session service stores events in: exact round trips.

An event comes back equal, of the same classes, with the same ``model_fields_set``
everywhere in its tree, and sharing nothing mutable with the event it was encoded from
or with other decodes of it.
"""

from __future__ import annotations

import array
import collections
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


class Label(str):
    """A str subclass: marshal refuses it, so it is kept aside, its class kept."""


class Coded(enum.Enum):
    """An enum whose values are not leaves."""

    PAIR = (1, 2)


class Flagged(BaseModel):
    colour: OutcomeStatus | None = None
    mode: Coded | None = None


def test_the_same_classes_with_different_fields_sets_come_back_each_with_its_own():
    events = [
        Event(author="a"),
        Event(author="a", branch="b"),
        Event(author="a", branch="b", invocation_id="i"),
        Event(author="a", branch="b"),  # a fields set seen before
        Event.model_construct(),  # nothing set
    ]
    for _ in range(2):
        for event in events:
            roundtrip(event)
    event = Event(author="a")
    event.branch = "later"  # marks the field set
    assert "branch" in roundtrip(event).model_fields_set


def test_a_fields_set_with_a_name_that_is_not_a_field_keeps_the_model_aside():
    event = Event(author="a", content=types.ModelContent("hi"))
    event.content.parts[0].__pydantic_fields_set__.add("not_a_field")
    encoded = encode(event)
    assert isinstance(encoded, Aside)
    decoded = decode(encoded, Event)
    assert decoded == event and "not_a_field" in decoded.content.parts[0].model_fields_set


def test_an_event_whose_dict_is_not_exactly_its_fields_is_deep_copied_whole():
    event = Event(author="a", content=types.ModelContent("hi"))
    event.__dict__["stray"] = [1]
    encoded = encode(event)
    assert isinstance(encoded, Aside)
    decoded = decode(encoded, Event)
    assert decoded.__dict__["stray"] == [1] and decoded.__dict__["stray"] is not event.stray


def test_fields_are_read_by_name_whatever_the_order_of_the_dict():
    event = Event(author="a", branch="b", content=types.ModelContent("hi"))
    event.__dict__ = dict(reversed(event.__dict__.items()))
    decoded = roundtrip(event)
    assert decoded.branch == "b" and decoded.content.text == "hi"


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_contents_with_any_number_of_parts_come_back_unchanged(count):
    parts = [types.Part(text=f"t{i}") for i in range(count - 1)]
    if count:
        parts.append(types.Part(function_call=types.FunctionCall(name="f", args={"x": 1})))
    decoded = roundtrip(Event(author="a", content=types.Content(role="model", parts=parts)))
    assert len(decoded.content.parts) == count


def test_parts_that_are_not_a_list_of_models_come_back_unchanged():
    event = Event(author="a", content=types.ModelContent("hi"))
    event.content.parts = (types.Part(text="in a tuple"),)  # type: ignore[assignment]
    assert type(roundtrip(event).content.parts) is tuple
    event.content.parts = [types.Part(text="p"), {"not": "a part"}]  # type: ignore[list-item]
    assert roundtrip(event).content.parts[1] == {"not": "a part"}


def test_enum_fields_come_back_as_the_same_members_or_whatever_else_they_hold():
    for _ in range(2):  # the second time, from the encodings remembered
        event = Event(author="a", finish_reason=types.FinishReason.STOP)
        assert roundtrip(event).finish_reason is types.FinishReason.STOP
        flagged = Flagged(colour=OutcomeStatus.FAILURE, mode=Coded.PAIR)
        decoded = roundtrip(Event(author="a", custom_metadata={"f": flagged}))
        got = decoded.custom_metadata["f"]
        assert got.colour is OutcomeStatus.FAILURE and got.mode is Coded.PAIR
    event = Event(author="a")
    event.finish_reason = "STOP"  # type: ignore[assignment]
    assert type(roundtrip(event).finish_reason) is str
    event.finish_reason = Ticket(title="t")  # type: ignore[assignment]
    assert type(roundtrip(event).finish_reason) is Ticket


def test_containers_of_leaves_of_any_size_come_back_exact_and_unshared():
    values = [True, 1, 1.0, -0.0, math.inf, 1e-310, "1", b"1", None]
    big = {f"k{i}": v for i, v in enumerate(values)} | {1: "int key"}
    delta = {
        "big": big,
        "keys": {1: "a", 2.5: "b", b"c": "c", None: "d", False: "e"},
        "list": list(values),
        "tuple": tuple(values),
        "set": {1, "a", 2.5},
        "nested": {"a": [{"b": (1, [2])}], "c": {"d": frozenset({1})}, "e": 1, "f": 2},
    }
    event = Event(author="a", actions=EventActions(state_delta=delta))
    encoded = encode(event)
    first, second = decode(encoded, Event), decode(encoded, Event)
    for decoded in (first, second):
        got = decoded.actions.state_delta
        assert_exact(decoded, event)
        assert [type(v) for v in got["big"].values()] == [type(v) for v in big.values()]
        assert [type(k) for k in got["keys"]] == [type(k) for k in delta["keys"]]
        assert [type(v) for v in got["list"]] == [type(v) for v in values]
        assert math.copysign(1.0, got["big"]["k3"]) == -1.0 and got["big"]["k5"] == 1e-310
        assert type(got["tuple"]) is tuple and type(got["nested"]["a"][0]["b"]) is tuple
        assert got["big"] is not big and got["list"] is not delta["list"]
    first.actions.state_delta["big"]["k0"] = "changed"
    first.actions.state_delta["list"].append(0)
    assert second.actions.state_delta["big"]["k0"] is True
    assert second.actions.state_delta["list"] == values and big["k0"] is True


def test_dicts_holding_values_marshal_would_change_or_refuse_come_back_unchanged():
    delta = {
        "label": {"a": Label("x"), "b": 1, "c": 2, "d": 3},
        "label key": {Label("k"): 1, "b": 1, "c": 2, "d": 3},
        "buffer": {"a": bytearray(b"x"), "b": 1, "c": 2, "d": 3},
        "array": [array.array("b", [1, 2])],
        "small": {"a": Label("y")},
        "point": {"a": Point(1, [2]), "b": 1, "c": 2, "d": 3},
    }
    decoded = roundtrip(Event(author="a", actions=EventActions(state_delta=delta)))
    got = decoded.actions.state_delta
    assert type(got["label"]["a"]) is Label and type(next(iter(got["label key"]))) is Label
    assert type(got["buffer"]["a"]) is bytearray and type(got["small"]["a"]) is Label
    assert type(got["array"][0]) is array.array
    assert got["point"]["a"] == Point(1, [2])


class Inner(BaseModel):
    name: str = ""


class Outer(BaseModel):
    inner: Inner | None = None
    inners: list[Inner] | None = None


class SubInner(Inner):
    extra: int = 0


class PrivateInner(Inner):
    _seen: int = PrivateAttr(default=0)


def test_nested_models_of_the_annotated_class_or_a_subclass_come_back_as_their_class():
    # Whichever comes first: the annotated class's encoder is bound on first use.
    for inner in (SubInner(name="s", extra=1), Inner(name="i"), PrivateInner(name="p")):
        for _ in range(2):
            event = Event(author="a", custom_metadata={"o": Outer(inner=inner, inners=[inner])})
            decoded = roundtrip(event)
            got = decoded.custom_metadata["o"]
            assert type(got.inner) is type(inner) and type(got.inners[0]) is type(inner)
            assert got.inner is not inner


def test_empty_dict_defaults_of_another_dict_class_come_back_as_that_class():
    actions = EventActions()
    actions.__dict__["state_delta"] = collections.OrderedDict()
    actions.__dict__["requested_auth_configs"] = collections.defaultdict(list)
    decoded = roundtrip(Event(author="a", actions=actions))
    assert type(decoded.actions.state_delta) is collections.OrderedDict
    assert type(decoded.actions.requested_auth_configs) is collections.defaultdict
    assert type(roundtrip(Event(author="a")).actions.state_delta) is dict


def test_a_fields_set_in_another_order_gets_the_same_header():
    first = Event(author="a", branch="b")
    second = first.model_copy()
    grown = {"author", "branch", *(f"x{i}" for i in range(50))}  # a bigger table:
    grown -= {f"x{i}" for i in range(50)}  # the same names, maybe in another order
    object.__setattr__(second, "__pydantic_fields_set__", grown)
    assert encode(first) == encode(second)
    assert roundtrip(second).model_fields_set == {"author", "branch"}


def test_an_event_with_values_kept_aside_leaves_nothing_behind_for_the_next():
    aside = Event(author="a", actions=EventActions(state_delta={"p": Point(1, [2])}))
    plain = Event(author="a", actions=EventActions(state_delta={"n": 1}))
    for _ in range(2):  # the events encoded before and after it stay plain bytes
        first, kept, after = encode(plain), encode(aside), encode(plain)
        assert type(first) is bytes and type(after) is bytes
        assert type(kept) is Aside and len(kept.values) == 1
        assert_exact(decode(kept, Event), aside)
        assert_exact(decode(after, Event), plain)


def test_events_encoded_in_several_threads_at_once_come_back_exact():
    from concurrent.futures import ThreadPoolExecutor

    def events(i: int) -> list[Event]:
        return [
            Event(author=f"a{i}", actions=EventActions(state_delta={"p": Point(i, [i])})),
            Event(
                author=f"b{i}",
                content=types.Content(role="model", parts=[types.Part(text=f"t{i}")]),
            ),
        ]

    def work(i: int) -> None:
        for _ in range(200):
            for event in events(i):
                assert_exact(decode(encode(event), Event), event)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(8)))
