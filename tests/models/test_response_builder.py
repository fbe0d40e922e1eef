"""ResponseBuilder: streamed deltas and whole blocks assembled into one answer."""

from __future__ import annotations

from pyadk import types
from pyadk.models._streaming import ResponseBuilder, parse_arguments


def test_text_deltas_return_partials_and_join_in_the_final_answer() -> None:
    builder = ResponseBuilder()
    partials = [builder.text(piece) for piece in ["a", "", "b"]]
    assert [p.content.text if p and p.content else None for p in partials] == ["a", None, "b"]
    assert all(p.partial for p in partials if p)
    builder.finish_reason = types.FinishReason.STOP
    final = builder.final()
    assert not final.partial and final.turn_complete
    assert final.content is not None and final.content.parts == [types.Part(text="ab")]


def test_thoughts_stay_separate_from_text_and_keep_their_signature() -> None:
    builder = ResponseBuilder()
    thought = builder.text("hmm", thought=True, key=0)
    builder.signature(b"sig", thought=True, key=0)
    builder.text("answer", key=1)
    assert thought is not None and thought.content is not None
    assert thought.content.parts == [types.Part(text="hmm", thought=True)]
    final = builder.final()
    assert final.content is not None
    assert final.content.parts == [
        types.Part(text="hmm", thought=True, thought_signature=b"sig"),
        types.Part(text="answer"),
    ]
    assert final.content.text == "answer"


def test_tool_call_deltas_are_assembled_by_key_in_order() -> None:
    builder = ResponseBuilder()
    builder.call(0, call_id="c0", name="get_weather", arguments="")
    builder.call(1, call_id="c1", name="get_time", arguments='{"zo')
    builder.call(0, arguments='{"city": ')
    builder.call(1, arguments='ne": "CET"}')
    builder.call(0, arguments='"Paris"}')
    final = builder.final()
    assert final.error_code is None
    assert final.content is not None
    assert [p.function_call for p in final.content.parts or []] == [
        types.FunctionCall(id="c0", name="get_weather", args={"city": "Paris"}),
        types.FunctionCall(id="c1", name="get_time", args={"zone": "CET"}),
    ]


def test_a_repeated_tool_name_in_deltas_is_not_doubled() -> None:
    builder = ResponseBuilder()
    builder.call(0, name="get_weather", arguments="{}")
    builder.call(0, name="get_weather")
    final = builder.final()
    assert final.content is not None and final.content.parts is not None
    assert final.content.parts[0].function_call == types.FunctionCall(name="get_weather", args={})


def test_malformed_tool_arguments_are_an_error_not_a_call() -> None:
    builder = ResponseBuilder()
    builder.text("Calling.")
    builder.call(0, call_id="c0", name="get_weather", arguments='{"city": "Par')
    final = builder.final()
    assert final.error_code == "MALFORMED_FUNCTION_CALL"
    assert final.finish_reason == types.FinishReason.MALFORMED_FUNCTION_CALL
    assert final.error_message is not None and "get_weather" in final.error_message
    assert final.content is not None
    assert final.content.parts == [types.Part(text="Calling.")]


def test_an_empty_answer_cut_short_reports_why() -> None:
    builder = ResponseBuilder()
    builder.finish_reason = types.FinishReason.MAX_TOKENS
    final = builder.final()
    assert final.error_code == "MAX_TOKENS"
    assert final.error_message == "The model returned no content (finish reason MAX_TOKENS)."


def test_an_empty_answer_that_stopped_normally_is_not_an_error() -> None:
    builder = ResponseBuilder()
    builder.finish_reason = types.FinishReason.STOP
    final = builder.final()
    assert final.error_code is None
    assert final.content is not None and final.content.parts == [types.Part(text="")]


def test_redacted_reasoning_is_kept_as_an_opaque_thought() -> None:
    builder = ResponseBuilder()
    builder.redacted_thought(b"opaque")
    builder.text("ok")
    final = builder.final()
    assert final.content is not None
    assert final.content.parts == [
        types.Part(thought=True, thought_signature=b"opaque"),
        types.Part(text="ok"),
    ]


def test_parse_arguments() -> None:
    assert parse_arguments("") == {}
    assert parse_arguments(None) == {}
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments({"a": 1}) == {"a": 1}
    assert parse_arguments("[1, 2]") is None
    assert parse_arguments("{oops") is None
