"""Reading the embedded model's output: calls, answers, errors, usage, streamed text."""

import pytest

from pyadk import types
from pyadk.models import LlmRequest
from pyadk.models.local._parse import PartialText, final_response, parse_call
from pyadk.models.local._runtime import Completion
from pyadk.models.local._schema import plan_output


def _plan(mode: str | None = None, schema=None):
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="weather",
                parameters=types.Schema(
                    type="OBJECT", properties={"city": types.Schema(type="STRING")}
                ),
            )
        ]
    )
    config = types.GenerateContentConfig(tools=[tool], response_schema=schema)
    if mode:
        config.tool_config = types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=mode)
        )
    return plan_output(LlmRequest(contents=[types.UserContent("q")], config=config))


def _done(text: str, finish: str = "stop") -> Completion:
    return Completion(text, prompt_tokens=100, completion_tokens=7, finish_reason=finish)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "weather", "arguments": {"city": "Paris"}}',
        '<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ],
)
def test_a_call_bare_or_tagged(text):
    response = final_response(_done(text), _plan(), "v1")
    assert response.content.parts == [
        types.Part(function_call=types.FunctionCall(name="weather", args={"city": "Paris"}))
    ]
    assert response.finish_reason == types.FinishReason.STOP
    assert response.usage_metadata == types.UsageMetadata(
        prompt_token_count=100, candidates_token_count=7, total_token_count=107
    )
    assert response.model_version == "v1" and not response.partial


def test_text_is_the_answer():
    response = final_response(_done("It is sunny."), _plan(), "v1")
    assert response.content == types.Content(role="model", parts=[types.Part(text="It is sunny.")])


def test_a_truncated_call_is_reported_as_malformed():
    response = final_response(_done('{"name": "weather", "argu', "length"), _plan(), "v1")
    assert response.content is None
    assert response.error_code == "MALFORMED_FUNCTION_CALL"
    assert response.finish_reason == types.FinishReason.MALFORMED_FUNCTION_CALL
    assert "Unparseable function call" in response.error_message
    assert response.usage_metadata.total_token_count == 107


def test_tagged_call_of_an_undeclared_function_is_malformed():
    text = '<tool_call>\n{"name": "rm_rf", "arguments": {}}\n</tool_call>'
    assert final_response(_done(text), _plan(), "v1").error_code == "MALFORMED_FUNCTION_CALL"
    assert parse_call('{"name": "rm_rf", "arguments": {}}', ["weather"]) is None


def test_with_a_response_schema_non_call_json_is_the_answer():
    plan = _plan(schema={"type": "object", "properties": {"city": {"type": "string"}}})
    response = final_response(_done(' {"city": "Paris"}\n'), plan, "v1")
    assert response.content.parts == [types.Part(text='{"city": "Paris"}')]


def test_length_maps_to_max_tokens():
    response = final_response(_done("It is su", "length"), _plan(), "v1")
    assert response.finish_reason == types.FinishReason.MAX_TOKENS
    assert response.content.text == "It is su"


def test_cached_prompt_tokens_are_reported():
    completion = Completion("ok", 50, 1, "stop", cached_tokens=40)
    usage = final_response(completion, _plan(), "v1").usage_metadata
    assert usage.cached_content_token_count == 40


def test_partial_text_passes_text_and_holds_back_calls():
    text = PartialText(_plan())
    assert [text.feed(d) for d in ["It", " is", " sunny"]] == ["It", " is", " sunny"]
    call = PartialText(_plan())
    assert [call.feed(d) for d in ['{"', "name", '": "weather"}']] == ["", "", ""]
    forced = PartialText(_plan("ANY"))
    assert forced.feed("Hello") == ""


def test_partial_text_without_tools_streams_everything():
    plan = plan_output(LlmRequest(contents=[types.UserContent("q")]))
    partial = PartialText(plan)
    assert [partial.feed(d) for d in ["{", "json", "}"]] == ["{", "json", "}"]
