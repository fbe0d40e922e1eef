"""PoC 6 as the seeds specify it: A fails, B and C are skipped by callback, D summarises."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from poc6_sequential_failure.agent import create_root_agent
from poc6_sequential_failure.callbacks.callbacks import parse_outcome
from poc6_sequential_failure.offline_model import create_offline_model

from pyadk.models import LlmRequest
from pyadk.models.defaults import set_default_model
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

FAILURE_JSON = '{"status": "failure", "message": "Tool failed: Simulated failure"}'


def _recording_summary_model(reply: str) -> FunctionModel:
    return FunctionModel(lambda request: reply)


async def test_failure_skips_b_and_c_and_d_summarises(caplog):
    model_a = ScriptedModel([function_call("FailingTool"), FAILURE_JSON])
    model_b, model_c = ScriptedModel([]), ScriptedModel([])
    model_d = _recording_summary_model("Agent A failed, B and C were skipped, D completed.")
    root = create_root_agent(
        "failure",
        models={"AgentA": model_a, "AgentB": model_b, "AgentC": model_c, "AgentD": model_d},
    )
    runner = TestRunner(root)
    with caplog.at_level(logging.INFO):
        events = await runner.run("Start the sequence.")

    assert simplify_events(events) == [
        ("AgentA", "call:FailingTool({})"),
        ("AgentA", "response:FailingTool({'status': 'error', 'message': 'Simulated failure'})"),
        ("AgentA", FAILURE_JSON),
        (
            "AgentB",
            "AgentB skipped. Skipped due to prior step outcome: "
            "agent_a_outcome status is 'failure'.",
        ),
        (
            "AgentC",
            "AgentC skipped. Skipped due to prior step outcome: "
            "agent_b_outcome status is 'skipped'.",
        ),
        ("AgentD", "Agent A failed, B and C were skipped, D completed."),
    ]
    assert model_b.requests == [] and model_c.requests == []
    assert model_a.call_count == 2 and model_d.requests

    state = await runner.state()
    assert state["agent_a_outcome"] == FAILURE_JSON
    assert json.loads(state["agent_b_outcome"]) == {
        "status": "skipped",
        "message": "Skipped due to prior step outcome: agent_a_outcome status is 'failure'.",
    }
    assert json.loads(state["agent_c_outcome"]) == {
        "status": "skipped",
        "message": "Skipped due to prior step outcome: agent_b_outcome status is 'skipped'.",
    }

    instruction = model_d.requests[0].system_instruction_text()
    assert (
        f"Agent A -> {FAILURE_JSON}, Agent B -> {state['agent_b_outcome']}, "
        f"Agent C -> {state['agent_c_outcome']}." in instruction
    )
    assert "{agent_a_outcome}" not in instruction
    assert "Sequence complete" in caplog.messages
    assert "Skipping AgentB: agent_a_outcome status is 'failure'." in caplog.messages


async def test_success_runs_every_agent():
    success_a = '{"status": "success", "message": "done", "result": "42 records processed"}'
    model_a = ScriptedModel([function_call("SucceedingTool"), success_a])
    model_b = ScriptedModel(['{"status": "success", "message": "Agent B running primary task"}'])
    model_c = ScriptedModel(['{"status": "success", "message": "Agent C running primary task"}'])
    model_d = _recording_summary_model("All steps succeeded, D completed.")
    root = create_root_agent(
        "success",
        models={"AgentA": model_a, "AgentB": model_b, "AgentC": model_c, "AgentD": model_d},
    )
    runner = TestRunner(root)
    events = await runner.run("Start the sequence.")

    assert [author for author, _ in simplify_events(events)] == [
        "AgentA",
        "AgentA",
        "AgentA",
        "AgentB",
        "AgentC",
        "AgentD",
    ]
    assert model_b.call_count == 1 and model_c.call_count == 1
    state = await runner.state()
    assert json.loads(state["agent_b_outcome"])["status"] == "success"
    assert json.loads(state["agent_c_outcome"])["status"] == "success"
    assert '"status": "success"' in model_d.requests[0].system_instruction_text()


@pytest.mark.parametrize(
    "stored",
    [
        "not json at all",
        '{"message": "no status"}',
        '```json\n{"status": "failure"}\n```',
        None,
    ],
)
async def test_b_is_skipped_unless_a_clearly_succeeded(stored):
    model_b = ScriptedModel([])
    model_c = ScriptedModel([])
    model_d = _recording_summary_model("summary")

    def agent_a_reply(request: LlmRequest):
        return "ignored"

    root = create_root_agent(
        "failure",
        models={
            "AgentA": FunctionModel(agent_a_reply),
            "AgentB": model_b,
            "AgentC": model_c,
            "AgentD": model_d,
        },
    )
    # Agent A is replaced by a stored outcome: skip it with a callback that records `stored`.
    agent_a = root.sub_agents[0].sub_agents[0]

    def record(callback_context):
        if stored is not None:
            callback_context.state["agent_a_outcome"] = stored
        from pyadk import types

        return types.ModelContent("A replaced")

    agent_a.before_agent_callback = record
    runner = TestRunner(root)
    await runner.run("go")
    state = await runner.state()
    assert model_b.requests == [] and model_c.requests == []
    assert json.loads(state["agent_b_outcome"])["status"] == "skipped"
    assert json.loads(state["agent_c_outcome"])["status"] == "skipped"
    expected_a = "unknown" if stored is None else None
    if expected_a:
        assert json.loads(state["agent_a_outcome"])["status"] == expected_a
    assert "Agent A -> " in model_d.requests[0].system_instruction_text()


def test_parse_outcome_handles_fences_text_and_bad_input():
    assert parse_outcome('```json\n{"status": "success"}\n```') == ({"status": "success"}, "parsed")
    assert parse_outcome('Result: {"status": "failure"} done')[0] == {"status": "failure"}
    assert parse_outcome({"status": "success"})[0] == {"status": "success"}
    value, reason = parse_outcome("oops")
    assert value is None and "not JSON" in reason
    value, reason = parse_outcome("[1, 2]")
    assert value is None and "not an object" in reason
    assert parse_outcome(None) == (None, "no outcome recorded")
    assert parse_outcome(3)[0] is None


async def test_offline_default_model_runs_the_whole_poc():
    set_default_model(create_offline_model())
    runner = TestRunner(create_root_agent("failure"))
    events = await runner.run("Start the sequence.")
    state = await runner.state()
    assert json.loads(state["agent_a_outcome"])["status"] == "failure"
    assert json.loads(state["agent_c_outcome"])["status"] == "skipped"
    answers = [e for e in events if e.content]
    assert answers[-1].author == "AgentD"
    assert answers[-1].text == (
        "Agent A failed, Agent B was skipped, Agent C was skipped, D completed."
    )


def test_module_runs_from_the_command_line():
    project = EXAMPLES / "poc6_sequential_failure"
    env = {**os.environ, "PYTHONPATH": str(project)}
    result = subprocess.run(
        [sys.executable, "-m", "poc6_sequential_failure", "failure"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "[AgentD] Agent A failed" in result.stdout
    assert "Sequence complete" in result.stderr
