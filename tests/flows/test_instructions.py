"""System instruction: templates, providers, global instruction, identity and order."""

from __future__ import annotations

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, ReadonlyContext
from pyadk.testing import ScriptedModel, TestRunner, function_call


async def _system_instruction(agent: LlmAgent, model: ScriptedModel, **runner_kwargs) -> str:
    runner = TestRunner(agent, **runner_kwargs)
    await runner.run("hi")
    return model.requests[-1].system_instruction_text()


async def _render(instruction, state=None) -> str:
    model = ScriptedModel(["ok"])
    agent = LlmAgent(name="a", model=model, instruction=instruction)
    return await _system_instruction(agent, model, state=state)


# -- templates ------------------------------------------------------------------------------


async def test_state_variables_are_substituted():
    text = await _render("Hello {name}, you like {topic}.", {"name": "Ada", "topic": "maths"})
    assert text.startswith("Hello Ada, you like maths.")


async def test_non_string_state_values_are_rendered_as_text():
    text = await _render("Count: {n}", {"n": 3})
    assert text.startswith("Count: 3")


async def test_optional_missing_variable_renders_empty():
    text = await _render("A[{missing?}]B [{present?}]", {"present": "yes"})
    assert text.startswith("A[]B [yes]")


async def test_app_and_user_scoped_variables():
    text = await _render(
        "{app:motd} / {user:lang} / {temp:missing?}", {"app:motd": "welcome", "user:lang": "fr"}
    )
    assert text.startswith("welcome / fr / ")


async def test_invalid_names_and_json_left_verbatim():
    template = 'Keep {not a var} and {"a": 1} and {1abc} and {}.'
    text = await _render(template)
    assert text.startswith(template)


async def test_double_braces_render_literal_braces():
    text = await _render("Literal {{var}} and real {var}.", {"var": "V"})
    assert text.startswith("Literal {var} and real V.")


async def test_missing_required_variable_names_key_and_agent():
    model = ScriptedModel(["never"])
    agent = LlmAgent(name="needy", model=model, instruction="Use {customer_id}.")
    with pytest.raises(KeyError) as info:
        await TestRunner(agent).run("hi")
    message = str(info.value)
    assert "customer_id" in message and "needy" in message
    assert model.call_count == 0


async def test_artifact_placeholder():
    model = ScriptedModel(["ok"])
    agent = LlmAgent(name="a", model=model, instruction="Notes: {artifact.notes.txt}")
    runner = TestRunner(agent)
    await runner.artifact_service.save_artifact(
        app_name=runner.app_name,
        user_id=runner.user_id,
        session_id=runner.session_id,
        filename="notes.txt",
        artifact=types.Part(text="remember the milk"),
    )
    await runner.run("hi")
    assert model.requests[0].system_instruction_text().startswith("Notes: remember the milk")


async def test_missing_optional_artifact_renders_empty():
    text = await _render("Notes: [{artifact.nothing.txt?}]")
    assert text.startswith("Notes: []")


async def test_missing_required_artifact_raises_naming_it_and_agent():
    model = ScriptedModel(["never"])
    agent = LlmAgent(name="reader", model=model, instruction="Notes: {artifact.nothing.txt}")
    with pytest.raises(KeyError) as info:
        await TestRunner(agent).run("hi")
    assert "nothing.txt" in str(info.value) and "reader" in str(info.value)


async def test_template_reads_state_written_earlier_in_the_turn():
    model = ScriptedModel(["ok"])

    def before(callback_context):
        callback_context.state["mood"] = "cheerful"

    agent = LlmAgent(name="a", model=model, instruction="Be {mood}.", before_agent_callback=before)
    assert (await _system_instruction(agent, model)).startswith("Be cheerful.")


# -- providers ------------------------------------------------------------------------------


async def test_sync_instruction_provider_bypasses_templating():
    def provider(ctx: ReadonlyContext) -> str:
        assert isinstance(ctx, ReadonlyContext)
        return f"Agent {ctx.agent_name} sees {{raw}} and {ctx.state['x']}"

    text = await _render(provider, {"x": "state value"})
    assert text.startswith("Agent a sees {raw} and state value")


async def test_async_instruction_provider_bypasses_templating():
    async def provider(ctx: ReadonlyContext) -> str:
        return "Literal {missing_key}"

    text = await _render(provider)
    assert text.startswith("Literal {missing_key}")


async def test_a_plain_instruction_is_sent_as_written():
    assert (await _render("Call your tool, report JSON.")).startswith(
        "Call your tool, report JSON.\n\n"
    )


async def test_a_subclass_canonical_instruction_is_used_for_a_string_instruction():
    class Prefixed(LlmAgent):
        async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
            text, bypass = await super().canonical_instruction(ctx)
            return f"[prefixed] {text}", bypass

    model = ScriptedModel(["ok"])
    agent = Prefixed(name="a", model=model, instruction="Hello {name}.")
    text = await _system_instruction(agent, model, state={"name": "Ada"})
    assert text.startswith("[prefixed] Hello Ada.")


# -- global instruction, identity, order ----------------------------------------------------


def _tree(sub_model: ScriptedModel) -> LlmAgent:
    sub = LlmAgent(
        name="helper",
        description="Helps with details.",
        model=sub_model,
        instruction="Helper instruction.",
        global_instruction="IGNORED sub-agent global.",
    )
    return LlmAgent(
        name="root",
        model=ScriptedModel([function_call("transfer_to_agent", {"agent_name": "helper"})]),
        instruction="Root instruction.",
        global_instruction="Global for {company}.",
        sub_agents=[sub],
    )


async def test_global_instruction_of_root_is_first_and_templated_for_sub_agents():
    sub_model = ScriptedModel(["helped"])
    root = _tree(sub_model)
    runner = TestRunner(root, state={"company": "ACME"})
    await runner.run("hi")

    text = sub_model.requests[0].system_instruction_text()
    assert text.startswith("Global for ACME.")
    assert "IGNORED" not in text
    assert "Root instruction." not in text


async def test_system_instruction_order_global_instruction_identity_transfer():
    sub_model = ScriptedModel(["helped"])
    root = _tree(sub_model)
    await TestRunner(root, state={"company": "ACME"}).run("hi")

    text = sub_model.requests[0].system_instruction_text()
    positions = [
        text.index("Global for ACME."),
        text.index("Helper instruction."),
        text.index('"helper"'),
        text.index("transfer_to_agent"),
    ]
    assert positions == sorted(positions)


async def test_identity_contains_name_and_description():
    model = ScriptedModel(["ok"])
    agent = LlmAgent(name="weather_bot", description="Reports the weather.", model=model)
    text = await _system_instruction(agent, model)
    assert "weather_bot" in text
    assert "Reports the weather." in text


async def test_no_instruction_means_identity_only():
    model = ScriptedModel(["ok"])
    agent = LlmAgent(name="plain", model=model)
    text = await _system_instruction(agent, model)
    assert "plain" in text
    assert "{" not in text


async def test_instruction_provider_used_for_global_instruction():
    model = ScriptedModel(["ok"])
    agent = LlmAgent(
        name="a",
        model=model,
        global_instruction=lambda ctx: "Global {not_templated}",
        instruction="Local.",
    )
    text = await _system_instruction(agent, model)
    assert text.startswith("Global {not_templated}")
    assert text.index("Global") < text.index("Local.")


async def test_instruction_is_rebuilt_each_turn_from_current_state():
    model = ScriptedModel(["one", "two"])
    agent = LlmAgent(name="a", model=model, instruction="Step {step}.")
    runner = TestRunner(agent, state={"step": 1})
    await runner.run("first")
    await runner.run("second", state_delta={"step": 2})
    assert model.requests[0].system_instruction_text().startswith("Step 1.")
    assert model.requests[1].system_instruction_text().startswith("Step 2.")
