"""The real embedded model (loaded once per session): tool choice, tool_config, structured
output, streaming, the default-model path and PoC 6 end to end.

Generation is greedy, so these are deterministic for a given model file and runtime;
they still assert structure and easy facts only, never exact prose.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from local_tools import add, get_weather
from pydantic import BaseModel

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest, defaults
from pyadk.testing import TestRunner, simplify_events
from pyadk.tools import FunctionTool

POC6 = Path(__file__).resolve().parents[3] / "examples" / "poc6_sequential_failure"

pytestmark = pytest.mark.local_model


def _assistant(llm, **kwargs) -> LlmAgent:
    return LlmAgent(
        name="assistant",
        model=llm,
        instruction="You are a helpful assistant.",
        tools=[get_weather, add],
        **kwargs,
    )


def _calls(events) -> list[tuple[str, dict]]:
    return [(c.name, c.args) for e in events for c in e.get_function_calls()]


async def test_the_model_calls_the_right_tool_then_answers(local_llm):
    runner = TestRunner(_assistant(local_llm))
    events = await runner.run("What's the weather in Paris?")
    assert _calls(events) == [("get_weather", {"city": "Paris"})]
    final = events[-1]
    assert final.is_final_response() and final.author == "assistant" and final.text

    events = await TestRunner(_assistant(local_llm)).run("What is 17 + 25?")
    assert _calls(events) == [("add", {"a": 17, "b": 25})]
    assert [r.response for e in events for r in e.get_function_responses()] == [{"result": 42}]
    assert "42" in events[-1].text


async def test_the_model_answers_without_a_tool_when_none_fits(local_llm):
    events = await TestRunner(_assistant(local_llm)).run("Who wrote Hamlet?")
    assert _calls(events) == []
    assert len(events) == 1 and "Shakespeare" in events[0].text


def _request(question: str, mode: str) -> LlmRequest:
    request = LlmRequest(contents=[types.UserContent(question)])
    request.append_tools([FunctionTool(get_weather), FunctionTool(add)])
    request.config.tool_config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=mode, allowed_function_names=["add"] if mode == "ANY" else None
        )
    )
    return request


async def test_tool_config_any_forces_a_call_and_none_forbids_it(local_llm):
    forced = [r async for r in local_llm.generate_content_async(_request("Hello!", "ANY"))]
    (response,) = forced
    assert [p.function_call.name for p in response.content.parts] == ["add"]

    request = _request("What's the weather in Paris?", "NONE")
    (answer,) = [r async for r in local_llm.generate_content_async(request)]
    assert answer.content.text and not answer.content.parts[0].function_call
    assert not answer.content.text.lstrip().startswith(("{", "<tool_call>"))


class CityFacts(BaseModel):
    city: str
    country: str
    is_capital: bool


async def test_structured_output_matches_the_schema(local_llm):
    agent = LlmAgent(
        name="extractor",
        model=local_llm,
        instruction="Extract the city, its country and whether it is the capital.",
        output_schema=CityFacts,
        output_key="facts",
    )
    runner = TestRunner(agent)
    await runner.run("Paris is the capital of France.")
    facts = (await runner.state())["facts"]
    assert CityFacts.model_validate(facts) == CityFacts(
        city="Paris", country="France", is_capital=True
    )


async def test_streaming_partials_add_up_to_the_final_answer(local_llm):
    request = LlmRequest(contents=[types.UserContent("Name three primary colours.")])
    request.config.max_output_tokens = 40
    responses = [r async for r in local_llm.generate_content_async(request, stream=True)]
    partials, final = responses[:-1], responses[-1]
    assert len(partials) > 1 and all(r.partial for r in partials) and not final.partial
    assert "".join(r.content.text for r in partials) == final.content.text
    usage = final.usage_metadata
    assert 0 < usage.candidates_token_count <= 40 and usage.prompt_token_count > 10
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count


async def test_an_agent_without_a_model_runs_on_the_embedded_default(local_llm, monkeypatch):
    monkeypatch.setattr(defaults, "_default_model", defaults._UNSET)
    monkeypatch.setattr(defaults, "_embedded", local_llm)
    agent = LlmAgent(name="plain", instruction="Answer in one short sentence.")
    events = await TestRunner(agent).run("What is the capital of Italy?")
    assert agent.canonical_model is local_llm
    assert "Rome" in events[-1].text


async def test_an_agent_runs_on_the_model_named_local(local_llm):
    # "local" resolves through the registry to a LocalLlm with the default settings,
    # which shares the runtime the session already loaded.
    agent = LlmAgent(name="named", model="local", instruction="Answer in one short sentence.")
    assert agent.canonical_model.loaded() is local_llm.loaded()
    events = await TestRunner(agent).run("What is the capital of Italy?")
    assert "Rome" in events[-1].text


async def test_poc6_runs_end_to_end_on_the_real_model(local_llm, monkeypatch):
    monkeypatch.syspath_prepend(str(POC6))
    from poc6_sequential_failure.agent import create_root_agent

    runner = TestRunner(create_root_agent("failure", model=local_llm))
    events = await runner.run("Start the sequence.")
    simple = simplify_events(events)
    assert simple[:2] == [
        ("AgentA", "call:FailingTool({})"),
        ("AgentA", "response:FailingTool({'status': 'error', 'message': 'Simulated failure'})"),
    ]
    assert [author for author, _ in simple] == ["AgentA"] * 3 + ["AgentB", "AgentC", "AgentD"]
    state = await runner.state()
    assert json.loads(state["agent_a_outcome"])["status"] == "failure"
    assert json.loads(state["agent_b_outcome"])["status"] == "skipped"
    assert json.loads(state["agent_c_outcome"])["status"] == "skipped"
    summary = simple[-1][1]
    assert "fail" in summary.lower() and "skip" in summary.lower()


async def test_the_demo_runs_on_the_embedded_model(local_llm, capsys):
    from pyadk import demo

    await demo.main(["What is 6 * 7?"], local_llm)
    out = capsys.readouterr().out
    assert "[calculator] calls multiply({'a': 6, 'b': 7})" in out
    assert "multiply returned {'result': 42.0}" in out
    assert "'calculations': 1" in out and "'last_answer': " in out
