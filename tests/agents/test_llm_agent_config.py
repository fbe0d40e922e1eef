"""LlmAgent configuration: model resolution, generation config, contents, output."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import ClassVar

import pytest
from pydantic import BaseModel, ValidationError

from pyadk import types
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.models import BaseLlm, LlmRequest, LlmResponse, get_default_model, set_default_model
from pyadk.models import registry as registry_module
from pyadk.models.registry import LLMRegistry
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events


@pytest.fixture(autouse=True)
def _no_default_model():
    previous = get_default_model()
    set_default_model(None)
    yield
    set_default_model(previous)


class EchoLlm(BaseLlm):
    """Answers with its own model name; found by the registry."""

    requests: ClassVar[list[LlmRequest]] = []

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"pyadk-test-echo-.*"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        EchoLlm.requests.append(llm_request)
        yield LlmResponse(content=types.ModelContent(f"{self.model} says hi"))


@pytest.fixture
def echo_registered():
    EchoLlm.requests.clear()
    LLMRegistry.register(EchoLlm)
    yield
    for pattern in EchoLlm.supported_models():
        registry_module._registry.pop(pattern, None)
    registry_module._resolve_cached.cache_clear()


# -- model resolution -----------------------------------------------------------------------


async def test_model_inherited_from_nearest_llm_ancestor():
    model = ScriptedModel(["from child"])
    child = LlmAgent(name="child")
    pipeline = SequentialAgent(name="pipeline", sub_agents=[child])
    root = LlmAgent(name="root", model=model, sub_agents=[pipeline])

    assert child.canonical_model is model
    assert root.canonical_model is model
    events = await TestRunner(child).run("hi")
    assert simplify_events(events) == [("child", "from child")]


async def test_model_string_resolved_through_registry(echo_registered):
    agent = LlmAgent(name="a", model="pyadk-test-echo-1")
    assert isinstance(agent.canonical_model, EchoLlm)
    events = await TestRunner(agent).run("hi")
    assert simplify_events(events) == [("a", "pyadk-test-echo-1 says hi")]
    assert EchoLlm.requests[0].model == "pyadk-test-echo-1"


def test_unknown_model_name_raises_naming_it():
    agent = LlmAgent(name="a", model="no-such-model-xyz")
    with pytest.raises(ValueError, match="no-such-model-xyz"):
        _ = agent.canonical_model


async def test_no_model_anywhere_raises_naming_agent():
    agent = LlmAgent(name="lonely")
    with pytest.raises(ValueError, match="No model found for agent 'lonely'"):
        await TestRunner(agent).run("hi")


async def test_default_model_object_used_when_none_configured():
    model = ScriptedModel(["default answered"])
    set_default_model(model)
    events = await TestRunner(LlmAgent(name="a")).run("hi")
    assert simplify_events(events) == [("a", "default answered")]


async def test_default_model_name_resolved_through_registry(echo_registered):
    set_default_model("pyadk-test-echo-default")
    events = await TestRunner(LlmAgent(name="a")).run("hi")
    assert simplify_events(events) == [("a", "pyadk-test-echo-default says hi")]


async def test_own_model_wins_over_default():
    set_default_model(ScriptedModel([]))
    own = ScriptedModel(["own"])
    events = await TestRunner(LlmAgent(name="a", model=own)).run("hi")
    assert simplify_events(events) == [("a", "own")]


async def test_reassigned_model_is_used_on_next_run():
    agent = LlmAgent(name="a", model=ScriptedModel(["old"]))
    runner = TestRunner(agent)
    await runner.run("one")
    agent.model = ScriptedModel(["new"])
    assert simplify_events(await runner.run("two")) == [("a", "new")]


async def test_changed_default_and_inherited_models_are_picked_up():
    child = LlmAgent(name="child")
    root = LlmAgent(name="root", model=ScriptedModel(["root"]), sub_agents=[child])
    first = child.canonical_model
    root.model = ScriptedModel(["root v2"])
    assert child.canonical_model is root.model is not first

    lone = LlmAgent(name="lone")
    set_default_model(ScriptedModel(["d1"]))
    assert simplify_events(await TestRunner(lone).run("x")) == [("lone", "d1")]
    set_default_model(ScriptedModel(["d2"]))
    assert simplify_events(await TestRunner(lone).run("x")) == [("lone", "d2")]


async def test_tools_added_after_a_run_are_declared():
    def late_tool() -> str:
        """Added later."""
        return "late"

    model = ScriptedModel(["no tools yet", "now with tools"])
    agent = LlmAgent(name="a", model=model)
    runner = TestRunner(agent)
    await runner.run("one")
    agent.tools.append(late_tool)
    await runner.run("two")
    assert model.requests[0].declared_function_names() == []
    assert model.requests[1].declared_function_names() == ["late_tool"]


# -- generate_content_config ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"tools": [{"function_declarations": [{"name": "f"}]}]}, "LlmAgent.tools"),
        ({"system_instruction": "be nice"}, "LlmAgent.instruction"),
        ({"response_schema": {"type": "OBJECT"}}, "LlmAgent.output_schema"),
    ],
)
def test_generate_content_config_rejects_fields_owned_by_agent(config, message):
    with pytest.raises(ValidationError, match=message):
        LlmAgent(name="a", generate_content_config=types.GenerateContentConfig(**config))


async def test_generate_content_config_is_sent_and_not_mutated():
    model = ScriptedModel(["one", "two"])
    config = types.GenerateContentConfig(temperature=0.1, max_output_tokens=64, seed=7)
    agent = LlmAgent(name="a", model=model, instruction="Be brief.", generate_content_config=config)
    runner = TestRunner(agent)
    await runner.run("hi")
    await runner.run("again")

    for request in model.requests:
        assert request.config.temperature == 0.1
        assert request.config.max_output_tokens == 64
        assert request.config.seed == 7
        assert request.system_instruction_text().count("Be brief.") == 1
    assert agent.generate_content_config.system_instruction is None
    assert agent.generate_content_config.tools is None


# -- include_contents -----------------------------------------------------------------------


async def test_include_contents_none_sees_only_current_turn():
    def lookup(query: str) -> str:
        """Looks something up."""
        return f"found {query}"

    model = ScriptedModel(["first answer", function_call("lookup", {"query": "x"}), "second"])
    agent = LlmAgent(name="a", model=model, include_contents="none", tools=[lookup])
    runner = TestRunner(agent)
    await runner.run("first question")
    await runner.run("second question")

    assert [c.parts[0].text for c in model.requests[1].contents] == ["second question"]
    # Within the turn, the agent's own tool call and its result are kept.
    third = model.requests[2].contents
    assert third[0].parts[0].text == "second question"
    assert third[1].parts[0].function_call.name == "lookup"
    assert third[2].parts[0].function_response.response == {"result": "found x"}
    assert len(third) == 3


# -- output_key / output_schema -------------------------------------------------------------


class Capital(BaseModel):
    country: str
    capital: str


async def test_output_key_saves_final_text():
    agent = LlmAgent(name="a", model=ScriptedModel(["Paris"]), output_key="answer")
    runner = TestRunner(agent)
    events = await runner.run("capital of France?")
    assert events[-1].actions.state_delta == {"answer": "Paris"}
    assert (await runner.state())["answer"] == "Paris"


async def test_output_key_not_set_from_tool_call_or_response_events():
    def ping() -> str:
        """Pings."""
        return "pong"

    agent = LlmAgent(
        name="a",
        model=ScriptedModel([function_call("ping"), "final"]),
        tools=[ping],
        output_key="answer",
    )
    runner = TestRunner(agent)
    events = await runner.run("go")
    assert [("answer" in e.actions.state_delta) for e in events] == [False, False, True]
    assert (await runner.state())["answer"] == "final"


async def test_output_schema_without_tools_sets_response_schema():
    model = ScriptedModel(['{"country": "France", "capital": "Paris"}'])
    agent = LlmAgent(name="a", model=model, output_schema=Capital, output_key="result")
    runner = TestRunner(agent)
    await runner.run("France?")

    config = model.requests[0].config
    assert config.response_schema is Capital
    assert config.response_mime_type == "application/json"
    assert "set_model_response" not in model.requests[0].declared_function_names()
    assert (await runner.state())["result"] == {"country": "France", "capital": "Paris"}


async def test_output_schema_accepts_json_in_a_code_fence():
    fenced = '```json\n{"country": "Italy", "capital": "Rome"}\n```'
    agent = LlmAgent(name="a", model=ScriptedModel([fenced]), output_schema=Capital, output_key="r")
    runner = TestRunner(agent)
    await runner.run("Italy?")
    assert (await runner.state())["r"] == {"country": "Italy", "capital": "Rome"}


async def test_output_schema_with_tools_uses_set_model_response():
    def lookup_capital(country: str) -> str:
        """Looks up a capital."""
        return "Paris"

    model = ScriptedModel(
        [
            function_call("lookup_capital", {"country": "France"}),
            function_call("set_model_response", {"country": "France", "capital": "Paris"}),
        ]
    )
    agent = LlmAgent(
        name="a", model=model, tools=[lookup_capital], output_schema=Capital, output_key="result"
    )
    runner = TestRunner(agent)
    events = await runner.run("France?")

    first = model.requests[0]
    assert first.config.response_schema is None
    assert set(first.declared_function_names()) >= {"lookup_capital", "set_model_response"}
    final = events[-1]
    assert final.author == "a" and final.is_final_response()
    assert json.loads(final.content.text) == {"country": "France", "capital": "Paris"}
    assert (await runner.state())["result"] == {"country": "France", "capital": "Paris"}
    assert model.call_count == 2


async def test_set_model_response_with_invalid_args_lets_model_retry():
    def noop() -> str:
        """Does nothing."""
        return "ok"

    model = ScriptedModel(
        [
            function_call("set_model_response", {"country": "France"}),
            function_call("set_model_response", {"country": "France", "capital": "Paris"}),
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[noop], output_schema=Capital, output_key="r")
    runner = TestRunner(agent)
    events = await runner.run("France?")
    error = events[1].get_function_responses()[0].response
    assert "error" in error and "capital" in error["error"]
    assert (await runner.state())["r"] == {"country": "France", "capital": "Paris"}


async def test_invalid_json_for_output_schema_sets_error_code_and_no_key():
    agent = LlmAgent(
        name="a", model=ScriptedModel(["not json at all"]), output_schema=Capital, output_key="r"
    )
    runner = TestRunner(agent)
    events = await runner.run("France?")
    answer, outcome = events[-2], events[-1]
    assert answer.error_code
    assert "Capital" in answer.error_message
    assert "r" not in answer.actions.state_delta
    assert "r" not in await runner.state()
    assert outcome.actions.agent_outcome.status == "failure"
    assert "OUTPUT_SCHEMA_VALIDATION_ERROR" in outcome.actions.agent_outcome.reason


async def test_output_key_not_set_from_before_agent_callback_content():
    model = ScriptedModel([])
    agent = LlmAgent(
        name="a",
        model=model,
        output_key="answer",
        before_agent_callback=lambda callback_context: types.ModelContent("canned"),
    )
    runner = TestRunner(agent)
    events = await runner.run("hi")
    assert simplify_events(events) == [("a", "canned")]
    assert "answer" not in await runner.state()
    assert model.call_count == 0
