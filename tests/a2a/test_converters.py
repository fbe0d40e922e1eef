"""Part and event converters: the ADK wire conventions, both directions."""

from __future__ import annotations

from google.protobuf.json_format import MessageToDict

from pyadk import types
from pyadk.a2a.converters.event_converter import (
    convert_a2a_message_to_event,
    convert_event_to_a2a_events,
)
from pyadk.a2a.converters.part_converter import (
    convert_a2a_part_to_genai_part,
    convert_genai_part_to_a2a_part,
    data_part,
)
from pyadk.events import Event


def _wire(part: types.Part) -> dict:
    a2a_part = convert_genai_part_to_a2a_part(part)
    assert a2a_part is not None
    return MessageToDict(a2a_part)


def _round_trip(part: types.Part) -> types.Part | None:
    a2a_part = convert_genai_part_to_a2a_part(part)
    assert a2a_part is not None
    return convert_a2a_part_to_genai_part(a2a_part)


def test_parts_on_the_wire() -> None:
    call = types.Part.from_function_call(name="f", args={"x": "y"})
    assert _wire(call) == {
        "data": {"name": "f", "args": {"x": "y"}},
        "metadata": {"adk_type": "function_call"},
    }
    assert _wire(types.Part(text="hm", thought=True)) == {
        "text": "hm",
        "metadata": {"adk_thought": True},
    }
    blob = types.Part.from_bytes(data=b"\x00\x01", mime_type="image/png")
    assert _wire(blob) == {"raw": "AAE=", "mediaType": "image/png"}
    file = types.Part(
        file_data=types.FileData(file_uri="gs://b/f.pdf", mime_type="application/pdf")
    )
    assert _wire(file) == {"url": "gs://b/f.pdf", "mediaType": "application/pdf"}


def test_parts_round_trip() -> None:
    for part in [
        types.Part.from_text(text="hello"),
        types.Part(text="thinking", thought=True),
        types.Part.from_function_call(name="f", args={"city": "Paris"}),
        types.Part.from_function_response(name="f", response={"ok": "yes"}),
        types.Part.from_bytes(data=b"abc", mime_type="application/octet-stream"),
    ]:
        assert _round_trip(part) == part


def test_unknown_data_part_travels_as_a_tagged_blob_and_back() -> None:
    incoming = data_part({"rows": ["a", "b"]})
    part = convert_a2a_part_to_genai_part(incoming)
    assert part is not None and part.inline_data is not None
    assert part.inline_data.mime_type == "text/plain"
    assert part.inline_data.data == b'<a2a_datapart_json>{"rows": ["a", "b"]}</a2a_datapart_json>'
    back = convert_genai_part_to_a2a_part(part)
    assert back is not None and MessageToDict(back) == {"data": {"rows": ["a", "b"]}}


class _Ctx:
    app_name = "app"
    user_id = "u"

    class session:  # mimics InvocationContext.session
        id = "s1"


def test_long_running_call_event_becomes_input_required() -> None:
    call = types.Part.from_function_call(name="approve", args={})
    assert call.function_call is not None
    call.function_call.id = "call-1"
    event = Event(
        author="agent",
        invocation_id="inv",
        content=types.Content(role="model", parts=[call]),
        long_running_tool_ids={"call-1"},
    )

    [update] = convert_event_to_a2a_events(event, _Ctx(), "task", "ctx")

    wire = MessageToDict(update)
    assert wire["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert wire["status"]["message"]["parts"][0]["metadata"] == {
        "adk_type": "function_call",
        "adk_is_long_running": True,
    }
    assert wire["metadata"]["adk_session_id"] == "s1"
    assert wire["metadata"]["adk_author"] == "agent"
    back = convert_a2a_message_to_event(update.status.message, author="remote")
    assert back.long_running_tool_ids == {"call-1"}


def test_error_event_becomes_a_failed_status_first() -> None:
    event = Event(author="agent", invocation_id="inv", error_code="BOOM", error_message="it broke")

    [update] = convert_event_to_a2a_events(event, _Ctx(), "task", "ctx")

    wire = MessageToDict(update)
    assert wire["status"]["state"] == "TASK_STATE_FAILED"
    assert wire["status"]["message"]["parts"] == [{"text": "it broke"}]
    assert wire["metadata"]["adk_error_code"] == "BOOM"
