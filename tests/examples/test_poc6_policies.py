"""PoC 6 rewritten with policies: same observable behaviour, no callbacks, no JSON."""

import logging
import os
import subprocess
import sys
from pathlib import Path

from poc6_policies.agent import create_root_agent
from poc6_policies.offline_model import create_offline_model

from pyadk.agents import RunConfig
from pyadk.models.defaults import set_default_model
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _models(scenario: str):
    tool = "FailingTool" if scenario == "failure" else "SucceedingTool"
    return {
        "AgentA": ScriptedModel([function_call(tool), "The tool reported: Simulated failure."]),
        "AgentB": ScriptedModel(["Agent B running primary task"]),
        "AgentC": ScriptedModel(["Agent C running primary task"]),
        "AgentD": FunctionModel(lambda request: "Agent A failed, B and C were skipped."),
    }


async def test_failure_skips_b_and_c_without_callbacks(caplog):
    models = _models("failure")
    runner = TestRunner(create_root_agent("failure", models=models))
    with caplog.at_level(logging.INFO):
        events = await runner.run("Start the sequence.")

    assert simplify_events(events) == [
        ("AgentA", "call:FailingTool({})"),
        ("AgentA", "response:FailingTool({'status': 'error', 'message': 'Simulated failure'})"),
        ("AgentA", "The tool reported: Simulated failure."),
        ("AgentD", "Agent A failed, B and C were skipped."),
    ]
    assert models["AgentB"].requests == [] and models["AgentC"].requests == []
    outcomes = {
        e.author: e.actions.agent_outcome.describe() for e in events if e.is_outcome_event()
    }
    assert outcomes == {
        "AgentA": "failure: tool FailingTool failed: Simulated failure",
        "AgentB": "skipped: skipped because AgentA failure: tool FailingTool failed: "
        "Simulated failure",
        "AgentC": "skipped: skipped because AgentA failure: tool FailingTool failed: "
        "Simulated failure",
        "ErrorTestSequence": "failure: AgentA failure: tool FailingTool failed: Simulated failure",
        "RootAgent": "failure: ErrorTestSequence failure: AgentA failure: tool FailingTool "
        "failed: Simulated failure",
    }
    state = await runner.state()
    assert state["outcome:AgentA"] == {
        "status": "failure",
        "reason": "tool FailingTool failed: Simulated failure",
    }
    assert state["outcome:AgentB"]["status"] == "skipped"
    assert state["outcome:AgentC"]["status"] == "skipped"

    instruction = models["AgentD"].requests[0].system_instruction_text()
    assert (
        "Agent A -> failure: tool FailingTool failed: Simulated failure; "
        "Agent B -> skipped: skipped because AgentA failure: tool FailingTool failed: "
        "Simulated failure; Agent C -> skipped: " in instruction
    )
    assert "Sequence complete" in caplog.messages


async def test_success_runs_every_agent_and_records_success_when_asked():
    models = _models("success")
    models["AgentA"] = ScriptedModel([function_call("SucceedingTool"), "Done."])
    runner = TestRunner(create_root_agent("success", models=models))
    events = await runner.run("go", run_config=RunConfig(record_outcomes="all"))

    assert [a for a, _ in simplify_events(events)] == ["AgentA"] * 3 + [
        "AgentB",
        "AgentC",
        "AgentD",
    ]
    statuses = {e.author: e.actions.agent_outcome.status for e in events if e.is_outcome_event()}
    assert set(statuses.values()) == {"success"}
    assert "Agent B -> success; Agent C -> success" in (
        models["AgentD"].requests[0].system_instruction_text()
    )


async def test_d_runs_even_when_a_raises():
    models = _models("failure")
    models["AgentA"] = ScriptedModel([RuntimeError("model crashed")])
    runner = TestRunner(create_root_agent("failure", models=models))
    events = await runner.run("go")  # skip_rest absorbs the exception

    assert models["AgentB"].requests == [] and models["AgentC"].requests == []
    assert events[-1].author == "RootAgent"
    assert (await runner.state())["outcome:AgentA"]["status"] == "failure"
    assert "Agent A -> failure: model crashed" in (
        models["AgentD"].requests[0].system_instruction_text()
    )


async def test_offline_model_runs_the_example():
    set_default_model(create_offline_model())
    runner = TestRunner(create_root_agent("failure"))
    events = await runner.run("go")
    answers = [e for e in events if e.content]
    assert answers[-1].text == (
        "Agent A failed, Agent B was skipped, Agent C was skipped, D completed."
    )


def test_module_runs_from_the_command_line():
    project = EXAMPLES / "poc6_policies"
    result = subprocess.run(
        [sys.executable, "-m", "poc6_policies"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "outcome of AgentB: skipped" in result.stdout
    assert "[AgentD] Agent A failed" in result.stdout
