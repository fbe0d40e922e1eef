"""Reading outcomes: ctx.outcome_of, {outcome:X} templates, after-agent callbacks, history."""

from __future__ import annotations

import asyncio

import pytest
from agent_support import ALL, failing, failing_tool, llm

from pyadk import types
from pyadk.agents import LlmAgent, ReadonlyContext, SequentialAgent
from pyadk.events.outcome import AgentOutcome, OutcomeStatus
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools.tool_context import ToolContext

A_FAILED = "failure: tool failing_tool failed: Simulated failure"


# -- ctx.outcome_of ---------------------------------------------------------------------------


async def test_outcome_of_from_callback_instruction_provider_and_tool():
    seen: dict[str, AgentOutcome | None] = {}

    def before(callback_context):
        seen["callback"] = callback_context.outcome_of("a")

    def instruction(ctx: ReadonlyContext) -> str:
        seen["instruction"] = ctx.outcome_of("a")
        return "be brief"

    def inspect_a(tool_context: ToolContext) -> dict:
        """Reads a's outcome."""
        seen["tool"] = tool_context.outcome_of("a")
        return {"a": tool_context.outcome_of("a").status.value}

    b = llm(
        "b",
        function_call("inspect_a"),
        "done",
        tools=[inspect_a],
        instruction=instruction,
        before_agent_callback=before,
    )
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[failing("a"), b]))
    events = await runner.run("go")
    expected = AgentOutcome(
        agent="a", status="failure", reason="tool failing_tool failed: Simulated failure"
    )
    assert seen == {"callback": expected, "instruction": expected, "tool": expected}
    assert ("b", "response:inspect_a({'a': 'failure'})") in simplify_events(events)


async def test_outcome_of_sees_an_unrecorded_success_of_this_invocation():
    seen = []
    b = llm(
        "b",
        "B",
        before_agent_callback=lambda callback_context: seen.append(
            (callback_context.outcome_of("a"), callback_context.outcome_of("nobody"))
        ),
    )
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[llm("a", "A"), b]))
    await runner.run("go")
    assert seen == [(AgentOutcome(agent="a", status="success"), None)]
    assert "outcome:a" not in await runner.state()  # default: successes are not stored


async def test_outcome_of_reads_state_in_a_later_invocation():
    seen = []
    reader = llm(
        "reader",
        "r",
        before_agent_callback=lambda callback_context: seen.append(
            callback_context.outcome_of("a")
        ),
    )
    runner = TestRunner(failing("a"))
    await runner.run("go")
    runner.agent = reader  # same session, another agent
    await runner.run("again")
    assert seen == [
        AgentOutcome(
            agent="a", status="failure", reason="tool failing_tool failed: Simulated failure"
        )
    ]


async def test_a_success_after_a_failure_replaces_the_stored_outcome():
    agent = llm("a", function_call("failing_tool"), "x", "fine", "fine again", tools=[failing_tool])
    runner = TestRunner(agent)
    await runner.run("go")
    assert (await runner.state())["outcome:a"]["status"] == "failure"
    events = await runner.run("again")
    assert events[-1].actions.agent_outcome.status == "success"
    assert (await runner.state())["outcome:a"] == {"status": "success"}
    events = await runner.run("once more")  # nothing stale any more: no outcome event
    assert not any(e.is_outcome_event() for e in events)


# -- templates --------------------------------------------------------------------------------


async def test_outcome_template_renders_the_outcome_of_an_earlier_agent():
    d_model = ScriptedModel(["summary"])
    d = LlmAgent(
        name="d",
        model=d_model,
        instruction="A: {outcome:a}. B: {outcome:b}. X: [{outcome:x?}]",
    )
    seq = SequentialAgent(name="seq", sub_agents=[failing("a"), llm("b", "B"), d])
    await TestRunner(seq).run("go")
    assert (
        d_model.requests[0]
        .system_instruction_text()
        .startswith(f"A: {A_FAILED}. B: success. X: []")
    )


async def test_required_outcome_template_of_an_agent_that_never_ran_raises():
    model = ScriptedModel(["never"])
    agent = LlmAgent(name="d", model=model, instruction="A: {outcome:ghost}")
    with pytest.raises(KeyError, match=r"No outcome recorded for agent 'ghost'.*agent 'd'"):
        await TestRunner(agent).run("go")
    assert model.call_count == 0


# -- after_agent_callback ---------------------------------------------------------------------


async def test_after_agent_callback_receives_success_and_failure_outcomes():
    seen = []

    def after(callback_context):
        seen.append((callback_context.agent_name, callback_context.outcome))

    seq = SequentialAgent(
        name="seq",
        sub_agents=[
            llm("ok", "fine", after_agent_callback=after),
            llm(
                "bad",
                function_call("failing_tool"),
                "x",
                tools=[failing_tool],
                after_agent_callback=after,
            ),
        ],
        after_agent_callback=after,
    )
    await TestRunner(seq).run("go")
    assert [(name, o.status.value) for name, o in seen] == [
        ("ok", "success"),
        ("bad", "failure"),
        ("seq", "failure"),
    ]
    assert seen[2][1].reason == "bad failure: tool failing_tool failed: Simulated failure"


async def test_after_agent_callback_runs_on_exception_and_its_event_is_kept():
    seen = []

    def after(callback_context):
        seen.append(callback_context.outcome)
        callback_context.state["cleaned_up"] = True
        return types.ModelContent("sorry, something broke")

    runner = TestRunner(llm("a", ValueError("bad input"), after_agent_callback=after))
    with pytest.raises(ValueError, match="bad input"):
        await runner.run("go")
    assert seen == [
        AgentOutcome(agent="a", status="failure", reason="bad input", error_type="ValueError")
    ]
    session = await runner.session()
    assert simplify_events(session.events) == [("user", "go"), ("a", "sorry, something broke")]
    assert session.events[-1].actions.agent_outcome.status == "failure"
    assert session.state["cleaned_up"] is True


async def test_after_agent_callback_is_not_called_for_a_skipped_agent():
    after_calls = []
    agent = llm(
        "a",
        before_agent_callback=lambda callback_context: types.ModelContent("skip"),
        after_agent_callback=lambda callback_context: after_calls.append(1),
    )
    await TestRunner(agent).run("go")
    assert after_calls == []


async def test_after_agent_callback_runs_on_cancellation_and_its_state_is_stored():
    started = asyncio.Event()
    seen = []

    async def wait_forever() -> dict:
        """Waits."""
        started.set()
        await asyncio.Event().wait()
        return {}

    def after(callback_context):
        seen.append(callback_context.outcome.status)
        callback_context.state["released"] = "yes"

    agent = llm(
        "a", function_call("wait_forever"), tools=[wait_forever], after_agent_callback=after
    )
    runner = TestRunner(agent)
    task = asyncio.create_task(runner.run("go"))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [OutcomeStatus.CANCELLED]
    state = await runner.state()
    assert state["released"] == "yes"
    assert state["outcome:a"]["status"] == "cancelled"


# -- outcome events in the flow ---------------------------------------------------------------


async def test_outcome_events_are_not_final_responses():
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[failing("a")]))
    events = await runner.run("go", run_config=ALL)
    outcome_events = [e for e in events if e.is_outcome_event()]
    assert len(outcome_events) == 2
    assert not any(e.is_final_response() for e in outcome_events)
    assert [e.content.text for e in events if e.is_final_response()] == ["a gave up"]


async def test_outcome_events_are_not_part_of_model_history():
    b_model = ScriptedModel(["B1", "B2"])
    seq = SequentialAgent(name="seq", sub_agents=[failing("a"), LlmAgent(name="b", model=b_model)])
    runner = TestRunner(seq)
    await runner.run("go", run_config=ALL)
    stored = (await runner.session()).events
    assert sum(e.is_outcome_event() for e in stored) == 3  # a (failure), b, seq
    contents = b_model.requests[0].contents
    assert all(c.parts for c in contents)
    texts = " ".join(p.text or "" for c in contents for p in c.parts)
    assert "tool failing_tool failed" not in texts  # the outcome reason
    # what b saw: the user message and a's call, result and answer; nothing else
    assert len(contents) == 4


async def test_outcome_events_do_not_change_the_history_of_a_later_turn():
    model = ScriptedModel([function_call("failing_tool"), "gave up", "second answer"])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[failing_tool]))
    await runner.run("first")
    await runner.run("second", run_config=ALL)
    roles = [c.role for c in model.requests[2].contents]
    assert roles == ["user", "model", "user", "model", "user"]
    assert model.requests[2].contents[-1].parts[0].text == "second"


async def test_runner_next_turn_ignores_outcome_events_when_choosing_the_agent():
    helper_model = ScriptedModel(["helper 1", "helper 2"])
    helper = LlmAgent(name="helper", model=helper_model)
    root_model = ScriptedModel([function_call("transfer_to_agent", {"agent_name": "helper"})])
    root = LlmAgent(name="root", model=root_model, sub_agents=[helper])
    runner = TestRunner(root)
    await runner.run("help me", run_config=ALL)
    stored = (await runner.session()).events
    assert [e.author for e in stored if e.is_outcome_event()] == ["helper", "root"]
    events = await runner.run("more", run_config=ALL)
    assert simplify_events(events) == [("helper", "helper 2")]
    assert root_model.call_count == 1
