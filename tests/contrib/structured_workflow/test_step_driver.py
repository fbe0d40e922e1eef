"""How the tool-using steps are steered: forced saving calls, early ends, budgets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workflow_fakes import WorkflowModel, agent_name

from pyadk.contrib.structured_workflow import (
    create_baseline_workflow_adk_generator,
    create_structured_workflow_adk_generator,
    schemas,
)
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.types import FunctionCallingConfigMode


def forced(request: LlmRequest) -> tuple[Any, Any]:
    """(mode, allowed function names) of a request's tool_config, or (None, None)."""
    config = request.config.tool_config
    if config is None or config.function_calling_config is None:
        return None, None
    calling = config.function_calling_config
    return calling.mode, calling.allowed_function_names


async def run(tmp_path: Path, reply: Any, baseline: bool = False, **options: Any) -> tuple:
    model = FunctionModel(reply)
    factory = (
        create_baseline_workflow_adk_generator
        if baseline
        else create_structured_workflow_adk_generator
    )
    agent = factory(model, sandbox_model="echo", workspace_root=tmp_path, **options)
    runner = TestRunner(agent)
    events = await runner.run("Write an agent that adds numbers.")
    return model, events, await runner.state()


def of(model: FunctionModel, name: str) -> list[LlmRequest]:
    return [r for r in model.requests if agent_name(r) == name]


async def test_saving_tools_are_forced_one_after_the_other(tmp_path: Path) -> None:
    model, events, _ = await run(tmp_path, WorkflowModel())
    any_mode = FunctionCallingConfigMode.ANY
    assert [forced(r) for r in of(model, "ModuleSelectorAgent")] == [
        (any_mode, ["save_relevant_modules"])
    ]
    assert [forced(r) for r in of(model, "Planner")] == [
        (any_mode, ["save_implementation_plan"]),
        (any_mode, ["save_verification_plan"]),
    ]
    # Once both plans are saved the step ends without asking the model again.
    planner_texts = [e.text for e in events if e.author == "Planner" and e.text]
    assert planner_texts == ["done"]
    # Free-form steps are not forced.
    for name in ("PromptSanitizerAgent", "CandidateCreator", "RunAnalysisAgent"):
        assert {forced(r) for r in of(model, name)} == {(None, None)}, name


async def test_a_rejected_save_is_asked_again(tmp_path: Path) -> None:
    script = WorkflowModel()
    attempts: list[str] = []

    def reply(request: LlmRequest) -> Any:
        if agent_name(request) != "Planner":
            return script(request)
        _, allowed = forced(request)  # a model that follows tool_config
        if allowed == ["save_implementation_plan"]:
            attempts.append("call")
            plan = " " if len(attempts) == 1 else "1. add tool 2. agent"
            return function_call("save_implementation_plan", {"plan": plan})
        return function_call("save_verification_plan", {"test_prompt": "Add 2 and 3."})

    model, _, state = await run(tmp_path, reply)
    assert [forced(r)[1] for r in of(model, "Planner")] == [
        ["save_implementation_plan"],
        ["save_implementation_plan"],  # the rejection does not count as saved
        ["save_verification_plan"],
    ]
    assert state[schemas.IMPLEMENTATION_PLAN] == "1. add tool 2. agent"


async def test_baseline_may_search_before_it_must_save(tmp_path: Path) -> None:
    model, _, _ = await run(tmp_path, WorkflowModel(), baseline=True)
    [search, save] = of(model, "ModuleSelectorAgent")
    assert forced(search) == (FunctionCallingConfigMode.ANY, None)  # any of its tools
    assert forced(save) == (FunctionCallingConfigMode.ANY, None)


async def test_forcing_can_be_turned_off(tmp_path: Path) -> None:
    model, _, state = await run(tmp_path, WorkflowModel(), force_tool_calls=False)
    assert {forced(r) for r in model.requests} == {(None, None)}
    assert len(of(model, "Planner")) == 2  # still ends once both plans are saved
    assert state[schemas.VERIFIED] is True
