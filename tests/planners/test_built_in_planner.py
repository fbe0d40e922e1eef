"""BuiltInPlanner through a real runner: the thinking config goes on every request."""

from __future__ import annotations

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.planners import BuiltInPlanner
from pyadk.testing import ScriptedModel, TestRunner, function_call

THINK = types.ThinkingConfig(include_thoughts=True, thinking_budget=256)


def lookup(city: str) -> dict[str, str]:
    """Looks a city up."""
    return {"city": city, "country": "France"}


async def test_every_step_gets_the_thinking_config_and_keeps_the_agents_config() -> None:
    model = ScriptedModel([function_call("lookup", {"city": "Paris"}), "France."])
    config = types.GenerateContentConfig(
        temperature=0.2, thinking_config=types.ThinkingConfig(thinking_budget=1)
    )
    agent = LlmAgent(
        name="root",
        model=model,
        instruction="Answer briefly.",
        tools=[lookup],
        generate_content_config=config,
        planner=BuiltInPlanner(thinking_config=THINK),
    )

    await TestRunner(agent).run("Where is Paris?")

    assert model.call_count == 2
    for request in model.requests:
        assert request.config.thinking_config == THINK
        assert request.config.temperature == 0.2
    # The agent's own config is left as it was.
    assert agent.generate_content_config is not None
    assert agent.generate_content_config.thinking_config == types.ThinkingConfig(thinking_budget=1)


async def test_no_instruction_is_added_and_model_thoughts_stay_thoughts() -> None:
    reply = [types.Part(text="let me think", thought=True), types.Part(text="Hi!")]
    plain_model = ScriptedModel([reply, "again"])
    model = ScriptedModel([reply, "again"])
    plain = LlmAgent(name="root", model=plain_model, instruction="Greet.")
    agent = LlmAgent(
        name="root",
        model=model,
        instruction="Greet.",
        planner=BuiltInPlanner(thinking_config=THINK),
    )
    runner = TestRunner(agent)

    events = await runner.run("hello")
    await runner.run("hello again")
    await TestRunner(plain).run("hello")

    assert model.requests[0].config.system_instruction == (
        plain_model.requests[0].config.system_instruction
    )
    assert [(p.text, p.thought) for p in events[-1].content.parts] == [
        ("let me think", True),
        ("Hi!", None),
    ]
    # Without a rewriting planner, the history keeps the model's thought flags.
    assert model.requests[1].contents[1].parts[0].thought is True


def test_the_config_may_be_a_dict_or_none() -> None:
    assert BuiltInPlanner(thinking_config={"thinking_budget": 8}).thinking_config == (
        types.ThinkingConfig(thinking_budget=8)
    )
    assert BuiltInPlanner(thinking_config=None).thinking_config is None
    with pytest.raises(TypeError):
        BuiltInPlanner(THINK)  # type: ignore[misc]


def test_a_genai_thinking_config_is_accepted() -> None:
    genai_types = pytest.importorskip("google.genai.types")

    planner = BuiltInPlanner(thinking_config=genai_types.ThinkingConfig(thinking_budget=16))

    assert planner.thinking_config == types.ThinkingConfig(thinking_budget=16)


async def test_without_a_thinking_config_the_request_is_left_alone() -> None:
    model = ScriptedModel(["ok"])
    agent = LlmAgent(name="root", model=model, planner=BuiltInPlanner(thinking_config=None))

    await TestRunner(agent).run("hi")

    assert model.requests[0].config.thinking_config is None
