"""pyadk.types and Event: constructors, camelCase JSON, base64 bytes, final-response rules."""

from __future__ import annotations

import base64
import json

import pytest
from pydantic import ValidationError

from pyadk import types
from pyadk.events import Event, EventActions

# -- Part constructors --------------------------------------------------------------------


def test_part_from_text():
    part = types.Part.from_text(text="hello")
    assert part.text == "hello"
    assert part.function_call is None


def test_part_from_function_call_and_response():
    call = types.Part.from_function_call(name="get_weather", args={"city": "Paris"})
    assert call.function_call == types.FunctionCall(name="get_weather", args={"city": "Paris"})
    response = types.Part.from_function_response(name="get_weather", response={"temp": 21})
    assert response.function_response.name == "get_weather"
    assert response.function_response.response == {"temp": 21}


def test_part_from_bytes_and_uri():
    blob = types.Part.from_bytes(data=b"\x00\x01", mime_type="image/png")
    assert blob.inline_data == types.Blob(data=b"\x00\x01", mime_type="image/png")
    ref = types.Part.from_uri(file_uri="gs://bucket/a.pdf", mime_type="application/pdf")
    assert ref.file_data.file_uri == "gs://bucket/a.pdf"
    assert ref.file_data.mime_type == "application/pdf"


def test_code_execution_parts_and_tool():
    code = types.Part.from_executable_code(code="print(2)", language=types.Language.PYTHON)
    assert code.model_dump(by_alias=True, exclude_none=True) == {
        "executableCode": {"code": "print(2)", "language": "PYTHON"}
    }
    result = types.Part.from_code_execution_result(outcome=types.Outcome.OUTCOME_OK, output="2")
    assert result.code_execution_result.output == "2"
    tool = types.Tool(code_execution=types.ToolCodeExecution())
    assert tool.model_dump(by_alias=True, exclude_none=True) == {"codeExecution": {}}
    assert types.Tool.model_validate({"codeExecution": {}}).code_execution is not None


def test_constructors_are_keyword_only_like_genai():
    with pytest.raises(TypeError):
        types.Part.from_text("positional")  # type: ignore[misc]


# -- Content ------------------------------------------------------------------------------


def test_content_text_joins_non_thought_text_parts():
    content = types.Content(
        role="model",
        parts=[
            types.Part(text="thinking...", thought=True),
            types.Part(text="Hello, "),
            types.Part.from_function_call(name="f", args={}),
            types.Part(text="world"),
        ],
    )
    assert content.text == "Hello, world"
    assert types.Content(role="model").text is None
    assert types.Content(parts=[types.Part.from_function_call(name="f", args={})]).text is None


def test_user_and_model_content():
    user = types.UserContent("hi")
    assert isinstance(user, types.Content)
    assert (user.role, user.text) == ("user", "hi")
    model = types.ModelContent([types.Part(text="a"), "b"])
    assert model.role == "model"
    assert [p.text for p in model.parts] == ["a", "b"]
    # genai's keyword form.
    assert types.UserContent(parts=[types.Part(text="k")]).text == "k"


# -- JSON ---------------------------------------------------------------------------------


def test_camel_case_json_round_trip():
    content = types.Content(
        role="model",
        parts=[
            types.Part.from_function_call(name="f", args={"x": 1}),
            types.Part(
                function_response=types.FunctionResponse(
                    id="c1", name="f", response={"ok": True}, will_continue=False
                )
            ),
            types.Part.from_bytes(data=b"\xfb\xff\xbf\x00", mime_type="application/octet-stream"),
            types.Part.from_uri(file_uri="https://x/y", mime_type="text/plain"),
        ],
    )
    data = content.model_dump(by_alias=True, exclude_none=True)
    assert data["parts"][0] == {"functionCall": {"name": "f", "args": {"x": 1}}}
    assert data["parts"][1]["functionResponse"]["willContinue"] is False
    assert data["parts"][2]["inlineData"]["mimeType"] == "application/octet-stream"
    assert data["parts"][3] == {"fileData": {"fileUri": "https://x/y", "mimeType": "text/plain"}}

    text = content.model_dump_json(by_alias=True, exclude_none=True)
    assert "mime_type" not in text and "function_call" not in text
    assert types.Content.model_validate_json(text) == content
    # camelCase and snake_case input are both accepted.
    assert types.Content.model_validate(data) == content
    assert types.Content.model_validate(content.model_dump()) == content


def test_bytes_are_base64_in_json_and_both_alphabets_are_accepted():
    raw = b"\xfb\xff\xbf\x00"
    part = types.Part.from_bytes(data=raw, mime_type="application/octet-stream")
    encoded = json.loads(part.model_dump_json(by_alias=True))["inlineData"]["data"]
    assert base64.urlsafe_b64decode(encoded) == raw

    standard = base64.b64encode(raw).decode()  # '+/+/AA=='
    urlsafe = base64.urlsafe_b64encode(raw).decode()  # '-_-_AA=='
    assert standard != urlsafe
    for text in (standard, urlsafe, urlsafe.rstrip("=")):
        payload = json.dumps({"inlineData": {"data": text, "mimeType": "x/y"}})
        assert types.Part.model_validate_json(payload).inline_data.data == raw

    signed = types.Part(text="t", thought_signature=raw)
    again = types.Part.model_validate_json(signed.model_dump_json(by_alias=True))
    assert again.thought_signature == raw


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (types.Part, {"txt": "typo"}),
        (types.Content, {"role": "user", "parts": [], "extra": 1}),
        (types.FunctionCall, {"name": "f", "arguments": {}}),
        (types.GenerateContentConfig, {"temprature": 0.1}),
    ],
)
def test_unknown_fields_are_rejected(model, data):
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        model.model_validate(data)


def test_objects_are_read_by_attribute_like_genai():
    """As in google-genai, a non-dict input is read by its attribute names."""

    class TextHolder:
        def __init__(self) -> None:
            self.text = "from attributes"
            self.not_a_field = 1

    content = types.Content(role="user", parts=[TextHolder()])
    assert type(content.parts[0]) is types.Part
    assert content.text == "from attributes"


@pytest.mark.parametrize("value", ["plain text", 3, object(), None])
def test_values_that_are_not_objects_with_fields_are_rejected(value):
    with pytest.raises(ValidationError, match=r"parts\.0"):
        types.Content(role="user", parts=[value])


# -- Schema / GenerateContentConfig ------------------------------------------------------


def test_schema_to_json_schema():
    schema = types.Schema(
        type=types.Type.OBJECT,
        description="A person",
        properties={
            "name": types.Schema(type=types.Type.STRING, min_length=1),
            "nickname": types.Schema(type="STRING", nullable=True),
            "tags": types.Schema(type="ARRAY", items=types.Schema(type="STRING"), max_items=3),
            "kind": types.Schema(type="STRING", enum=["a", "b"]),
            "age": types.Schema(type="INTEGER", minimum=0),
            "either": types.Schema(
                any_of=[types.Schema(type="NUMBER"), types.Schema(type="BOOLEAN")]
            ),
        },
        required=["name"],
    )
    assert schema.to_json_schema() == {
        "type": "object",
        "description": "A person",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "nickname": {"type": ["string", "null"]},
            "tags": {"type": "array", "maxItems": 3, "items": {"type": "string"}},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "age": {"type": "integer", "minimum": 0},
            "either": {"anyOf": [{"type": "number"}, {"type": "boolean"}]},
        },
    }


def test_generate_content_config_fields_and_camel_case():
    config = types.GenerateContentConfig.model_validate(
        {
            "temperature": 0.2,
            "topP": 0.9,
            "topK": 40,
            "maxOutputTokens": 256,
            "stopSequences": ["END"],
            "seed": 7,
            "responseMimeType": "application/json",
            "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 128},
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
            "labels": {"team": "a"},
        }
    )
    assert config.temperature == 0.2
    assert config.top_p == 0.9
    assert config.max_output_tokens == 256
    assert config.stop_sequences == ["END"]
    assert config.thinking_config == types.ThinkingConfig(
        include_thoughts=True, thinking_budget=128
    )
    fcc = config.tool_config.function_calling_config
    assert fcc.mode is types.FunctionCallingConfigMode.ANY
    assert fcc.allowed_function_names == ["f"]
    dumped = config.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert dumped["maxOutputTokens"] == 256
    assert dumped["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"
    assert types.GenerateContentConfig.model_validate(dumped) == config
    # system_instruction takes text or a Content.
    assert types.GenerateContentConfig(system_instruction="be brief").system_instruction == (
        "be brief"
    )
    as_content = types.GenerateContentConfig(system_instruction=types.UserContent("x"))
    assert as_content.system_instruction.text == "x"


# -- Event --------------------------------------------------------------------------------


def test_event_json_round_trip_with_camel_case():
    event = Event(
        invocation_id="e-123",
        author="agent",
        branch="root.agent",
        content=types.Content(
            role="model", parts=[types.Part.from_bytes(data=b"\xff\x00", mime_type="x/y")]
        ),
        actions=EventActions(
            state_delta={"k": [1, 2]}, artifact_delta={"f.txt": 0}, transfer_to_agent="other"
        ),
        long_running_tool_ids={"call-1"},
        partial=False,
        turn_complete=True,
        usage_metadata=types.UsageMetadata(prompt_token_count=3, total_token_count=5),
    )
    data = json.loads(event.model_dump_json(by_alias=True, exclude_none=True))
    assert data["invocationId"] == "e-123"
    assert data["actions"]["stateDelta"] == {"k": [1, 2]}
    assert data["actions"]["artifactDelta"] == {"f.txt": 0}
    assert data["actions"]["transferToAgent"] == "other"
    assert data["longRunningToolIds"] == ["call-1"]
    assert data["turnComplete"] is True
    assert data["usageMetadata"] == {"promptTokenCount": 3, "totalTokenCount": 5}
    assert "invocation_id" not in data and "state_delta" not in data["actions"]
    assert event.to_json_dict() == data

    back = Event.model_validate_json(json.dumps(data))
    assert back == event
    assert back.long_running_tool_ids == {"call-1"}
    assert back.content.parts[0].inline_data.data == b"\xff\x00"


def test_event_rejects_unknown_fields():
    with pytest.raises(ValidationError):
        Event(author="a", invocationid="typo")  # type: ignore[call-arg]


def _ev(*parts: types.Part, **kwargs) -> Event:
    return Event(author="agent", content=types.Content(role="model", parts=list(parts)), **kwargs)


def test_is_final_response_rules():
    text = types.Part(text="answer")
    call = types.Part.from_function_call(name="f", args={})
    response = types.Part.from_function_response(name="f", response={"r": 1})
    code_result = types.Part(
        code_execution_result=types.CodeExecutionResult(
            outcome=types.Outcome.OUTCOME_OK, output="2"
        )
    )
    code = types.Part(executable_code=types.ExecutableCode(code="1+1", language="PYTHON"))

    assert _ev(text).is_final_response()
    assert Event(author="agent").is_final_response()  # no content at all
    assert not _ev(call).is_final_response()
    assert not _ev(text, call).is_final_response()
    assert not _ev(response).is_final_response()
    assert not _ev(text, partial=True).is_final_response()
    assert not _ev(code, code_result).is_final_response()
    assert _ev(code_result, text).is_final_response()  # result not trailing
    # skip_summarization and long-running calls end the step.
    skip = _ev(response, actions=EventActions(skip_summarization=True))
    assert skip.is_final_response()
    assert _ev(call, long_running_tool_ids={"id1"}).is_final_response()


def test_event_helpers():
    call = types.Part.from_function_call(name="f", args={"a": 1})
    response = types.Part.from_function_response(name="g", response={})
    event = _ev(
        types.Part(text="x"),
        call,
        response,
        code_result := types.Part(code_execution_result=types.CodeExecutionResult(output="o")),
    )
    assert [c.name for c in event.get_function_calls()] == ["f"]
    assert [r.name for r in event.get_function_responses()] == ["g"]
    assert event.has_trailing_code_execution_result()
    assert event.text == "x"
    assert code_result.code_execution_result.output == "o"
    assert Event(author="a").get_function_calls() == []
    assert Event(author="a").text is None
    assert Event(author="a").id != Event(author="a").id
