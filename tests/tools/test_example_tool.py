"""ExampleTool (few-shot examples in the system instruction) and get_user_choice."""

from __future__ import annotations

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.examples import BaseExampleProvider, Example, convert_examples_to_text
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import ExampleTool, get_user_choice

WEATHER = Example(
    input=types.UserContent("Weather in Paris?"),
    output=[
        types.ModelContent([function_call("forecast", {"city": "Paris", "days": 2})]),
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="forecast", response={"sky": "clear"})],
        ),
        types.ModelContent("Clear skies in Paris."),
    ],
)
GREETING = Example(input=types.UserContent("Hi"), output=[types.ModelContent("Hello!")])


def test_examples_become_numbered_turns_with_calls_and_results() -> None:
    text = convert_examples_to_text([WEATHER, GREETING])
    assert text.startswith("<EXAMPLES>\n") and text.endswith("</EXAMPLES>")
    first = text.index("EXAMPLE 1:")
    second = text.index("EXAMPLE 2:")
    weather = text[first:second]
    assert weather.splitlines() == [
        "EXAMPLE 1:",
        "[user]",
        "Weather in Paris?",
        "[model]",
        "```tool_code",
        "forecast(city='Paris', days=2)",
        "```",
        "[user]",
        "```tool_outputs",
        '{"name": "forecast", "response": {"sky": "clear"}}',
        "```",
        "[model]",
        "Clear skies in Paris.",
        "End of example 1",
        "",
    ]
    assert "[user]\nHi\n[model]\nHello!\nEnd of example 2" in text


async def test_the_tool_adds_the_examples_to_each_request_and_is_not_declared() -> None:
    model = ScriptedModel(["Sunny."])
    agent = LlmAgent(
        name="weather",
        model=model,
        instruction="Answer about the weather.",
        tools=[ExampleTool([WEATHER, GREETING.model_dump()])],
    )
    await TestRunner(agent).run("Weather in Oslo?")
    [request] = model.requests
    instruction = request.system_instruction_text()
    assert instruction.startswith("Answer about the weather.")
    assert "EXAMPLE 2:" in instruction and "forecast(city='Paris', days=2)" in instruction
    assert request.tools_dict == {} and not request.config.tools


async def test_a_provider_gets_the_users_text_and_is_skipped_without_it() -> None:
    class ByWord(BaseExampleProvider):
        def __init__(self) -> None:
            self.queries: list[str] = []

        def get_examples(self, query: str) -> list[Example]:
            self.queries.append(query)
            return [WEATHER] if "weather" in query.lower() else [GREETING]

    provider = ByWord()
    model = ScriptedModel(["Sunny.", "Nice picture."])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[ExampleTool(provider)]))
    await runner.run(types.UserContent(["Weather", "in Rome?"]))
    assert provider.queries == ["Weather in Rome?"]
    assert "forecast(" in model.requests[0].system_instruction_text()

    image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))
    await runner.run(types.Content(role="user", parts=[image]))
    assert provider.queries == ["Weather in Rome?"]  # no text: not asked
    assert "EXAMPLES" not in model.requests[1].system_instruction_text()


def test_bad_examples_are_refused() -> None:
    with pytest.raises(TypeError, match="list of Example"):
        ExampleTool("examples.json")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="output"):
        ExampleTool([{"input": {"role": "user", "parts": [{"text": "x"}]}}])


async def test_get_user_choice_pauses_until_the_client_answers() -> None:
    model = ScriptedModel(
        [function_call("get_user_choice", {"options": ["tea", "coffee"]}), "Tea it is."]
    )
    runner = TestRunner(LlmAgent(name="host", model=model, tools=[get_user_choice]))
    events = await runner.run("Something to drink?")
    [call] = events[-1].get_function_calls()
    assert events[-1].long_running_tool_ids == {call.id}
    assert call.args == {"options": ["tea", "coffee"]}
    assert model.call_count == 1  # waiting for the user's choice

    answer = types.Part(
        function_response=types.FunctionResponse(
            id=call.id, name="get_user_choice", response={"result": "tea"}
        )
    )
    events = await runner.run(types.Content(role="user", parts=[answer]))
    assert events[-1].text == "Tea it is."
    assert model.requests[-1].contents[-1].parts[0].function_response.response == {"result": "tea"}
