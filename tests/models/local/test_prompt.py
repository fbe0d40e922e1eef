# ruff: noqa: E501  (the embedded template keeps its original long lines)
"""The prompt is exactly what Qwen2.5's own chat template renders for the same history."""

import json
import struct

import jinja2
import pytest

from pyadk import types
from pyadk.models import LlmRequest
from pyadk.models.local import LocalLlm
from pyadk.models.local._prompt import (
    DEFAULT_SYSTEM,
    answered_calls_prefill,
    messages_from_contents,
    render,
    tool_entry,
)

# tokenizer.chat_template of qwen2.5-coder-0.5b-instruct-q4_k_m.gguf (checked against the
# real file by test_the_template_is_the_one_in_the_model_file).
QWEN25_TEMPLATE = r"""{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"""


def _jinja(messages: list[dict], tools: list[dict] | None) -> str:
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda value: json.dumps(value, ensure_ascii=False)
    template = env.from_string(QWEN25_TEMPLATE)
    return template.render(messages=messages, tools=tools, add_generation_prompt=True)


def _as_template_messages(system: str, contents: list[types.Content]) -> list[dict]:
    out: list[dict] = [{"role": "system", "content": system}] if system else []
    for message in messages_from_contents(contents):
        entry: dict = {"role": message.role, "content": message.content}
        if message.tool_calls:
            entry["tool_calls"] = [
                {"function": {"name": name, "arguments": args}} for name, args in message.tool_calls
            ]
        out.append(entry)
    return out


WEATHER = tool_entry(
    "get_weather",
    "Returns the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
CLOCK = tool_entry("now", None, {"type": "object", "properties": {}})

HISTORIES = {
    "one user turn": [types.UserContent("Hi")],
    "text conversation": [
        types.UserContent("Hi"),
        types.ModelContent("Hello! How can I help?"),
        types.UserContent('Ünïcödé ✓ and "quotes"'),
    ],
    "call and response": [
        types.UserContent("Weather in Paris?"),
        types.ModelContent(
            [types.Part.from_function_call(name="get_weather", args={"city": "Paris"})]
        ),
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="get_weather", response={"t": "21 °C"})],
        ),
    ],
    "parallel calls with text": [
        types.UserContent("Weather in Paris and the time?"),
        types.ModelContent(
            [
                "Let me check.",
                types.Part.from_function_call(name="get_weather", args={"city": "Paris"}),
                types.Part.from_function_call(name="now", args={}),
            ]
        ),
        types.Content(
            role="user",
            parts=[
                types.Part.from_function_response(name="get_weather", response={"t": 21}),
                types.Part.from_function_response(name="now", response={"result": "noon"}),
            ],
        ),
        types.ModelContent("Sunny, 21 degrees, and it is noon."),
        types.UserContent("Thanks"),
    ],
}


@pytest.mark.parametrize("history", list(HISTORIES))
@pytest.mark.parametrize("system", ["You are terse.", ""])
@pytest.mark.parametrize("tools", [[], [WEATHER, CLOCK]])
def test_render_matches_the_official_template(history, system, tools):
    contents = HISTORIES[history]
    expected = _jinja(_as_template_messages(system, contents), tools or None)
    assert render(system, messages_from_contents(contents), tools) == expected


def test_default_system_prompt_when_there_is_none():
    prompt = render("", messages_from_contents([types.UserContent("Hi")]), [])
    assert prompt.startswith(f"<|im_start|>system\n{DEFAULT_SYSTEM}<|im_end|>\n")
    assert prompt.endswith("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")


def test_history_conversion_drops_thoughts_and_describes_media():
    contents = [
        types.Content(
            role="user",
            parts=[
                types.Part(text="look: "),
                types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png"),
                types.Part.from_uri(file_uri="gs://b/f.pdf", mime_type="application/pdf"),
            ],
        ),
        types.Content(
            role="model", parts=[types.Part(text="hmm", thought=True), types.Part(text="A cat.")]
        ),
    ]
    messages = messages_from_contents(contents)
    assert [(m.role, m.content) for m in messages] == [
        ("user", "look: [inline data: image/png][file: gs://b/f.pdf]"),
        ("assistant", "A cat."),
    ]


def test_prefill_repeats_the_answered_calls_only_after_tool_results():
    answered = messages_from_contents(HISTORIES["parallel calls with text"][:3])
    assert answered_calls_prefill(answered) == (
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        '{"name": "now", "arguments": {}}\n'
    )
    assert (
        answered_calls_prefill(messages_from_contents(HISTORIES["parallel calls with text"])) == ""
    )
    assert answered_calls_prefill(messages_from_contents(HISTORIES["one user turn"])) == ""


def _request(contents, **config) -> LlmRequest:
    request = LlmRequest(contents=contents, config=types.GenerateContentConfig(**config))
    return request


def _weather_tool() -> types.Tool:
    return types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="get_weather",
                description="Returns the weather for a city.",
                parameters=types.Schema(
                    type="OBJECT", properties={"city": types.Schema(type="STRING")}
                ),
            )
        ]
    )


def test_build_prompt_lists_tools_and_prefills_after_a_result():
    request = _request(
        HISTORIES["call and response"], system_instruction="Be brief.", tools=[_weather_tool()]
    )
    prompt, plan = LocalLlm().build_prompt(request)
    assert prompt.startswith("<|im_start|>system\nBe brief.\n\n# Tools\n")
    assert '"name": "get_weather"' in prompt.split("\n</tools>")[0]
    assert prompt.endswith(
        '<|im_start|>assistant\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
    )
    assert plan.callable_names == ["get_weather"] and plan.constraint.json_text


def test_build_prompt_states_the_response_schema_and_hides_tools_for_mode_none():
    request = _request(
        [types.UserContent("Paris?")],
        tools=[_weather_tool()],
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode="NONE")
        ),
        response_schema={"type": "object", "properties": {"city": {"type": "string"}}},
    )
    prompt, plan = LocalLlm().build_prompt(request)
    assert "# Tools" not in prompt and plan.callable_names == []
    system = prompt.split("<|im_end|>")[0]
    assert "reply with only a JSON value matching this JSON schema" in system
    assert '{"type": "object", "properties": {"city": {"type": "string"}}}' in system


@pytest.mark.local_model
def test_the_template_is_the_one_in_the_model_file(local_llm):
    with local_llm.model_file().open("rb") as handle:
        header = handle.read(20_000_000)
    key = b"tokenizer.chat_template"
    at = header.index(key) + len(key)
    kind, length = struct.unpack("<IQ", header[at : at + 12])
    assert kind == 8  # GGUF string
    assert header[at + 12 : at + 12 + length].decode() == QWEN25_TEMPLATE
