"""google-genai objects are accepted wherever pyadk types are (the ``[gemini]`` extra)."""

from __future__ import annotations

import pytest

genai_types = pytest.importorskip("google.genai.types")

from pyadk import types  # noqa: E402
from pyadk.agents.llm_agent import LlmAgent  # noqa: E402
from pyadk.testing import ScriptedModel, TestRunner  # noqa: E402


def _genai_content() -> genai_types.Content:
    return genai_types.Content(
        role="user",
        parts=[
            genai_types.Part.from_text(text="hello"),
            genai_types.Part.from_bytes(data=b"\x00\xff", mime_type="image/png"),
            genai_types.Part.from_function_call(name="f", args={"a": 1}),
            genai_types.Part.from_function_response(name="f", response={"r": 2}),
        ],
    )


def test_genai_content_validates_into_pyadk_content():
    content = types.Content.model_validate(_genai_content())
    assert type(content) is types.Content
    assert content.role == "user"
    assert content.text == "hello"
    parts = content.parts
    assert all(type(p) is types.Part for p in parts)
    assert parts[1].inline_data == types.Blob(data=b"\x00\xff", mime_type="image/png")
    assert parts[2].function_call == types.FunctionCall(name="f", args={"a": 1})
    assert parts[3].function_response.response == {"r": 2}


def test_genai_part_and_user_content_validate():
    part = types.Part.model_validate(genai_types.Part(text="x", thought=True))
    assert (part.text, part.thought) == ("x", True)
    user = types.Content.model_validate(
        genai_types.UserContent(parts=[genai_types.Part.from_text(text="u")])
    )
    assert (user.role, user.text) == ("user", "u")


def test_pyadk_json_is_readable_by_genai_and_back():
    pyadk_content = types.Content.model_validate(_genai_content())
    payload = pyadk_content.model_dump_json(by_alias=True, exclude_none=True)
    as_genai = genai_types.Content.model_validate_json(payload)
    assert as_genai.parts[1].inline_data.data == b"\x00\xff"
    assert as_genai.parts[2].function_call.args == {"a": 1}
    assert types.Content.model_validate(as_genai) == pyadk_content


def test_genai_generate_content_config_validates():
    config = types.GenerateContentConfig.model_validate(
        genai_types.GenerateContentConfig(
            temperature=0.2,
            max_output_tokens=64,
            stop_sequences=["END"],
            thinking_config=genai_types.ThinkingConfig(thinking_budget=16),
            tool_config=genai_types.ToolConfig(
                function_calling_config=genai_types.FunctionCallingConfig(mode="ANY")
            ),
        )
    )
    assert config.temperature == 0.2
    assert config.max_output_tokens == 64
    assert config.thinking_config.thinking_budget == 16
    assert config.tool_config.function_calling_config.mode is types.FunctionCallingConfigMode.ANY


def test_genai_schema_validates():
    schema = types.Schema.model_validate(
        genai_types.Schema(
            type="OBJECT",
            properties={"a": genai_types.Schema(type="STRING")},
            required=["a"],
        )
    )
    assert schema.to_json_schema() == {
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"type": "string"}},
    }


async def test_genai_content_as_runner_new_message():
    model = ScriptedModel(["seen"])
    runner = TestRunner(LlmAgent(name="agent", model=model))
    await runner.session()  # creates it
    message = genai_types.Content(role="user", parts=[genai_types.Part.from_text(text="hi there")])
    events = [
        e
        async for e in runner.run_async(
            user_id=runner.user_id, session_id=runner.session_id, new_message=message
        )
    ]
    assert events[-1].content.text == "seen"
    sent = model.requests[0].contents[-1]
    assert type(sent.parts[0]) is types.Part
    assert (sent.role, sent.parts[0].text) == ("user", "hi there")
    stored = (await runner.session()).events[0]
    assert type(stored.content) is types.Content
    assert stored.content.text == "hi there"


async def test_genai_content_returned_by_before_agent_callback():
    def before_agent(callback_context):
        return genai_types.Content(
            role="model", parts=[genai_types.Part.from_text(text="skipped by callback")]
        )

    model = ScriptedModel([])
    runner = TestRunner(LlmAgent(name="agent", model=model, before_agent_callback=before_agent))
    events = await runner.run("hi")
    assert [(e.author, e.content.text) for e in events if e.content] == [
        ("agent", "skipped by callback")
    ]
    assert type(events[0].content) is types.Content
    assert model.requests == []
    stored = await runner.session()
    assert stored.events[-1].content.text == "skipped by callback"
    assert stored.events[-1].actions.agent_outcome.status == "skipped"


async def test_genai_generate_content_config_on_llm_agent():
    model = ScriptedModel(["ok"])
    agent = LlmAgent(
        name="agent",
        model=model,
        generate_content_config=genai_types.GenerateContentConfig(
            temperature=0.3, max_output_tokens=12
        ),
    )
    assert isinstance(agent.generate_content_config, types.GenerateContentConfig)
    await TestRunner(agent).run("hi")
    config = model.requests[0].config
    assert isinstance(config, types.GenerateContentConfig)
    assert (config.temperature, config.max_output_tokens) == (0.3, 12)


def test_genai_config_with_tools_is_rejected_on_llm_agent():
    with pytest.raises(ValueError, match=r"LlmAgent\.tools"):
        LlmAgent(
            name="agent",
            model="x",
            generate_content_config=genai_types.GenerateContentConfig(
                tools=[genai_types.Tool(function_declarations=[])]
            ),
        )


def test_genai_fields_pyadk_does_not_model_are_left_behind():
    part = genai_types.Part(
        text="clip", video_metadata=genai_types.VideoMetadata(start_offset="1s")
    )
    converted = types.Part.model_validate(part)
    assert converted.model_dump(exclude_none=True) == {"text": "clip"}


def test_genai_response_chunk_builds_a_pyadk_llm_response():
    from pyadk.models import LlmResponse

    chunk = LlmResponse(
        content=genai_types.Content(role="model", parts=[genai_types.Part(text="x")]),
        usage_metadata=genai_types.GenerateContentResponseUsageMetadata(
            prompt_token_count=3, candidates_token_count=1
        ),
        partial=True,
    )
    assert type(chunk.content) is types.Content
    assert type(chunk.content.parts[0]) is types.Part
    assert chunk.usage_metadata.prompt_token_count == 3
