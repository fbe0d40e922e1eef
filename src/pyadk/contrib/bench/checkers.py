"""Checkers of the starter suite (``starter_tasks.yaml``): each takes the solution's path.

They check structure and behaviour with scripted models, so a verdict never depends on
a model: whatever model wrote the solution, the same file gets the same verdict.
"""

from __future__ import annotations

import inspect
from typing import Any

from pyadk.agents import BaseAgent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from pyadk.contrib.bench.checks import (
    agent_name_of,
    agents_of,
    function_of,
    load_agent,
    numbers_in,
    run_scripted,
    the_agent,
    tools_of,
)
from pyadk.testing import function_call
from pyadk.tools import AgentTool


def _call_with_numbers(function: Any, a: float, b: float) -> Any:
    params = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.name != "tool_context" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if len(params) < 2:
        return None
    result = function(a, b)
    if inspect.isawaitable(result):
        import asyncio

        async def wait() -> Any:
            return await result

        result = asyncio.run(wait())
    return result


def _tool_results(agent: LlmAgent, a: float, b: float) -> list[list[float]]:
    results = []
    for tool in tools_of(agent):
        function = function_of(tool)
        if function is None:
            continue
        try:
            results.append(numbers_in(_call_with_numbers(function, a, b)))
        except Exception:
            results.append([])
    return results


def _exiting_agents(root: BaseAgent) -> list[LlmAgent]:
    return [a for a in agents_of(root, LlmAgent) if "exit_loop" in {t.name for t in tools_of(a)}]


def _answered(request: Any) -> bool:
    last = request.contents[-1] if request.contents else None
    return bool(last and any(p.function_response for p in last.parts or []))


def check_add_tool(solution: str) -> None:
    """An LlmAgent with a tool that adds two numbers."""
    root = load_agent(solution)
    agent = the_agent(root, LlmAgent)
    results = _tool_results(agent, 2, 3)
    assert results, "the agent has no function tool"
    assert any(5.0 in r for r in results), f"no tool returned 5 for (2, 3): {results}"


def check_calculator(solution: str) -> None:
    """Tools for adding and multiplying."""
    agent = the_agent(load_agent(solution), LlmAgent)
    results = _tool_results(agent, 2, 3)
    assert any(5.0 in r for r in results), f"no tool adds: {results}"
    assert any(6.0 in r for r in results), f"no tool multiplies: {results}"


def check_output_key(solution: str) -> None:
    """An agent named summarizer storing its answer under ``summary``."""
    root = load_agent(solution)
    agent = the_agent(root, LlmAgent)
    assert agent.output_key == "summary", f"output_key is {agent.output_key!r}"
    run = run_scripted(root, ["A short summary."], "Summarize: pyadk is a framework.")
    assert run.state.get("summary") == "A short summary.", run.state


def check_state_instruction(solution: str) -> None:
    """The instruction reads ``{user_name}`` from state."""
    root = load_agent(solution)
    run = run_scripted(root, lambda request: "Hello!", "hi", state={"user_name": "Ada"})
    requests = getattr(run.model, "requests", [])
    assert requests, "the model was never called"
    instruction = requests[0].system_instruction_text()
    assert "Ada" in instruction, "the user's name from state is not in the instruction"


def check_counter_tool(solution: str) -> None:
    """A tool incrementing state ``counter`` through ToolContext."""
    root = load_agent(solution)
    agent = the_agent(root, LlmAgent)
    names = [t.name for t in tools_of(agent)]
    assert names, "the agent has no tool"

    def reply(request: Any) -> Any:
        calls = sum(1 for c in request.contents for p in c.parts or [] if p.function_response)
        return function_call(names[0], {}) if calls < 2 else "Counted twice."

    run = run_scripted(root, reply, "count twice")
    assert run.state.get("counter") == 2, f"state counter is {run.state.get('counter')!r}"


def check_sequential(solution: str) -> None:
    """writer (output_key draft) then editor reading {draft}."""
    root = load_agent(solution)
    pipeline = the_agent(root, SequentialAgent)
    steps = [a for a in pipeline.sub_agents if isinstance(a, LlmAgent)]
    assert len(steps) >= 2, "the SequentialAgent needs two LlmAgents"
    assert steps[0].output_key == "draft", f"the first step's output_key is {steps[0].output_key!r}"
    first = steps[0].name

    def reply(request: Any) -> str:
        return "ROSES ARE RED" if agent_name_of(request) == first else "Edited."

    run = run_scripted(root, reply, "Write a poem")
    later = [r for r in run.model.requests if agent_name_of(r) == steps[1].name]  # type: ignore[attr-defined]
    assert later, "the second step never ran"
    seen = later[0].system_instruction_text() + str(later[0].contents)
    assert "ROSES ARE RED" in seen, "the second step does not receive the draft"


def check_parallel(solution: str) -> None:
    """Two researchers in a ParallelAgent, outputs under ``cats`` and ``dogs``."""
    root = load_agent(solution)
    parallel = the_agent(root, ParallelAgent)
    keys = {a.output_key for a in agents_of(parallel, LlmAgent)}
    assert {"cats", "dogs"} <= keys, f"output keys are {keys}"
    run = run_scripted(root, lambda request: f"notes of {agent_name_of(request)}", "research")
    assert run.state.get("cats") and run.state.get("dogs"), run.state


def check_loop_exit(solution: str) -> None:
    """A LoopAgent (max_iterations <= 5) stopped by an agent with exit_loop."""
    root = load_agent(solution)
    loop = the_agent(root, LoopAgent)
    assert loop.max_iterations is not None and loop.max_iterations <= 5, loop.max_iterations
    exiting = _exiting_agents(loop)
    assert exiting, "no agent in the loop has the exit_loop tool"
    name = exiting[0].name

    def reply(request: Any) -> Any:
        if agent_name_of(request) == name and not _answered(request):
            return function_call("exit_loop")
        return "working"

    run = run_scripted(root, reply, "start")
    calls = [r for r in run.model.requests if agent_name_of(r) == name]  # type: ignore[attr-defined]
    assert len(calls) == 1, f"the loop did not stop at exit_loop ({len(calls)} checker calls)"


def check_guardrail(solution: str) -> None:
    """A before_model_callback blocking requests that contain 'forbidden'."""
    blocked = run_scripted(
        load_agent(solution), lambda request: "model answer", "this is forbidden"
    )
    assert not blocked.model.requests, "the model was called for a forbidden request"  # type: ignore[attr-defined]
    assert any("block" in t.lower() for t in blocked.texts), f"answer: {blocked.texts}"
    allowed = run_scripted(load_agent(solution), lambda request: "model answer", "hello there")
    assert allowed.model.requests, "the model was not called for an allowed request"  # type: ignore[attr-defined]


def check_custom_agent(solution: str) -> None:
    """A BaseAgent subclass yielding 'pong'."""
    root = load_agent(solution)
    assert not isinstance(root, LlmAgent | SequentialAgent | LoopAgent | ParallelAgent), (
        "root_agent must be a custom BaseAgent subclass"
    )
    assert type(root) is not BaseAgent, "root_agent must be an instance of a subclass"
    run = run_scripted(root, [], "ping")
    assert any("pong" in t.lower() for t in run.texts), f"texts: {run.texts}"


def check_output_schema(solution: str) -> None:
    """output_schema Weather(city, temperature_c), output_key weather."""
    root = load_agent(solution)
    agent = the_agent(root, LlmAgent)
    schema = agent.output_schema
    assert schema is not None, "no output_schema"
    assert {"city", "temperature_c"} <= set(schema.model_fields), list(schema.model_fields)
    assert agent.output_key == "weather", f"output_key is {agent.output_key!r}"
    run = run_scripted(root, ['{"city": "Oslo", "temperature_c": 3.5}'], "weather in Oslo")
    weather = run.state.get("weather")
    assert isinstance(weather, dict) and weather.get("city") == "Oslo", weather


def check_transfer(solution: str) -> None:
    """A coordinator with billing and support sub-agents it can transfer to."""
    root = load_agent(solution)
    assert isinstance(root, LlmAgent), "root_agent must be the coordinator LlmAgent"
    subs = {a.name: a for a in root.sub_agents}
    assert {"billing", "support"} <= set(subs), f"sub-agents: {list(subs)}"
    assert subs["billing"].description and subs["support"].description, "descriptions missing"

    def reply(request: Any) -> Any:
        if agent_name_of(request) == root.name:
            return function_call("transfer_to_agent", {"agent_name": "billing"})
        return "Billing here."

    run = run_scripted(root, reply, "I was charged twice")
    assert any(e.author == "billing" and e.text for e in run.events), "billing never answered"


def check_agent_tool(solution: str) -> None:
    """A root agent calling the calculator agent through AgentTool."""
    root = load_agent(solution)
    assert isinstance(root, LlmAgent), "root_agent must be an LlmAgent"
    wrapped = [t for t in root.tools if isinstance(t, AgentTool)]
    assert wrapped and wrapped[0].agent.name == "calculator", "no AgentTool(calculator)"

    def reply(request: Any) -> Any:
        if agent_name_of(request) == "calculator":
            return "5"
        if _answered(request):
            return "The answer is 5."
        return function_call("calculator", {"request": "2 + 3"})

    run = run_scripted(root, reply, "what is 2 + 3?")
    assert run.responses("calculator"), "the calculator tool was never called"


def check_failure_policy(solution: str) -> None:
    """A SequentialAgent with on_failure='skip_rest' and a finally agent reporter."""
    root = load_agent(solution)
    sequence = the_agent(root, SequentialAgent)
    assert sequence.on_failure == "skip_rest", f"on_failure is {sequence.on_failure!r}"
    names = [a.name for a in sequence.finally_agents]
    assert "reporter" in names, f"finally agents: {names}"

    def reply(request: Any) -> Any:
        if agent_name_of(request) == "reporter":
            return "report"
        raise RuntimeError("simulated model failure")

    run = run_scripted(root, reply, "go")
    assert any(e.author == "reporter" and e.text for e in run.events), "reporter did not run"


def check_refinement_loop(solution: str) -> None:
    """drafter, then a LoopAgent (max 3) of critic and reviser that stops with exit_loop."""
    root = load_agent(solution)
    sequence = the_agent(root, SequentialAgent)
    first = sequence.sub_agents[0] if sequence.sub_agents else None
    assert isinstance(first, LlmAgent) and first.output_key == "draft", "no drafter first"
    loop = the_agent(sequence, LoopAgent)
    assert loop.max_iterations == 3, f"max_iterations is {loop.max_iterations}"
    exiting = {
        a.name for a in agents_of(loop, LlmAgent) if "exit_loop" in {t.name for t in tools_of(a)}
    }
    assert exiting, "no agent in the loop has exit_loop"

    def reply(request: Any) -> Any:
        name = agent_name_of(request)
        if name in exiting and not _answered(request):
            return function_call("exit_loop")
        return "APPROVED" if name != first.name else "first draft"

    run = run_scripted(root, reply, "Write a slogan")
    assert run.state.get("draft"), "no draft in state"
    loop_calls = [r for r in run.model.requests if agent_name_of(r) in exiting]  # type: ignore[attr-defined]
    assert len(loop_calls) == 1, f"the loop did not stop at exit_loop ({len(loop_calls)} calls)"
