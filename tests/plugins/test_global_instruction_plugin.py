"""GlobalInstructionPlugin: an app-wide instruction first in every request, via a Runner."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, ReadonlyContext
from pyadk.plugins import BasePlugin
from pyadk.plugins.global_instruction_plugin import GlobalInstructionPlugin
from pyadk.testing import ScriptedModel, TestRunner, function_call


def _instruction(model: ScriptedModel, index: int = 0) -> Any:
    return model.requests[index].config.system_instruction


async def test_a_template_is_filled_from_state_and_put_first_for_every_agent() -> None:
    helper_model = ScriptedModel(["hello from helper"])
    helper = LlmAgent(name="helper", model=helper_model, instruction="You help.")
    root_model = ScriptedModel([function_call("transfer_to_agent", {"agent_name": "helper"})])
    root = LlmAgent(name="root", model=root_model, instruction="You route.", sub_agents=[helper])
    plugin = GlobalInstructionPlugin("Address the user as {user_name}. {tone?}")
    runner = TestRunner(root, state={"user_name": "Ada"}, plugins=[plugin])
    await runner.run("hi")
    assert _instruction(root_model).startswith("Address the user as Ada. \n\nYou route.")
    assert _instruction(helper_model).startswith("Address the user as Ada. \n\nYou help.")


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_provider_is_used_as_returned_without_templating(asynchronous: bool) -> None:
    def sync_provider(context: ReadonlyContext) -> str:
        return f"Agent {context.agent_name}; literal {{braces}}."

    async def async_provider(context: ReadonlyContext) -> str:
        return sync_provider(context)

    model = ScriptedModel(["ok"])
    plugin = GlobalInstructionPlugin(async_provider if asynchronous else sync_provider)
    await TestRunner(LlmAgent(name="a", model=model), plugins=[plugin]).run("hi")
    assert _instruction(model).startswith("Agent a; literal {braces}.")


async def test_a_missing_state_key_fails_the_call_naming_the_plugin_and_key() -> None:
    model = ScriptedModel(["unreached"])
    plugin = GlobalInstructionPlugin("Hello {user_name}.", name="house_rules")
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[plugin])
    with pytest.raises(RuntimeError, match="house_rules") as caught:
        await runner.run("hi")
    assert "user_name" in str(caught.value) and model.call_count == 0


async def test_an_empty_instruction_changes_nothing() -> None:
    model = ScriptedModel(["ok", "ok"])
    agent = LlmAgent(name="a", model=model, instruction="Only this.")
    runner = TestRunner(agent, plugins=[GlobalInstructionPlugin(lambda ctx: "")])
    await runner.run("hi")
    runner = TestRunner(agent, plugins=[GlobalInstructionPlugin()])
    await runner.run("hi")
    assert _instruction(model, 0) == _instruction(model, 1)
    assert _instruction(model, 0).startswith("Only this.")


async def test_goes_before_the_agents_global_instruction_and_agent_callbacks_see_it() -> None:
    seen: list[str] = []

    def agent_callback(callback_context: Any, llm_request: Any) -> None:
        seen.append(llm_request.config.system_instruction)

    model = ScriptedModel(["ok"])
    agent = LlmAgent(
        name="a",
        model=model,
        global_instruction="Old global.",
        instruction="Own.",
        before_model_callback=agent_callback,
    )
    await TestRunner(agent, plugins=[GlobalInstructionPlugin("App rule.")]).run("hi")
    assert _instruction(model).startswith("App rule.\n\nOld global.\n\nOwn.")
    assert seen == [_instruction(model)]


async def test_a_content_system_instruction_keeps_its_shape() -> None:
    class AsContent(BasePlugin):
        async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
            llm_request.config.system_instruction = types.Content(
                role="system", parts=[types.Part(text="Structured.")]
            )

    model = ScriptedModel(["ok"])
    plugins = [AsContent("as_content"), GlobalInstructionPlugin("First.")]
    await TestRunner(LlmAgent(name="a", model=model), plugins=plugins).run("hi")
    instruction = _instruction(model)
    assert isinstance(instruction, types.Content) and instruction.role == "system"
    assert [p.text for p in instruction.parts] == ["First.", "Structured."]
