"""Scenarios a-f: agent turns, tools, workflows and concurrency (see bench_common)."""

from __future__ import annotations

import asyncio
import gc
import json
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench_common import (
    ANSWER,
    Call,
    Info,
    Reply,
    Side,
    Text,
    answering_agent,
    check,
    new_session,
    now,
    run_turn,
    runner_for,
    said,
    stored,
    text_of,
    timed_new_session_turns,
)


async def scenario_a_new(side: Side, turns: int = 300, warmup: int = 20) -> dict[str, Any]:
    """a. One LlmAgent turn with a text answer, in a new session each turn."""
    agent, script = answering_agent(side)
    runner, service = runner_for(side, agent)

    elapsed, session, events = await timed_new_session_turns(
        side, runner, service, "What is the answer?", turns, warmup
    )
    events = said(events)
    check(len(events) == 1, f"expected 1 answer per turn, got {len(events)}")
    check(events[0].author == "assistant", f"answer author {events[0].author!r}")
    check(text_of(events[0]) == ANSWER, f"wrong answer {text_of(events[0])!r}")
    check(script.calls == turns + warmup, f"model called {script.calls}x for {turns + warmup}")
    check(script.last is not None and script.last.n_contents == 1, "model saw extra history")
    check("Answer briefly" in script.last.system, "instruction missing from the request")
    saved = said((await stored(service, session.id)).events)
    check(len(saved) == 2, f"stored {len(saved)} events with content, expected 2")
    return {
        "metrics": {"us_per_turn": elapsed / turns * 1e6},
        "check": {"ok": True, "detail": f"{turns} turns answered; 2 events stored per session"},
    }


def _slope(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0


async def scenario_a_reused(
    side: Side, checkpoints: str = "0,250,500,1000,2000", per_checkpoint: int = 8
) -> dict[str, Any]:
    """a. One session reused for up to 2,000 turns: cost per turn vs earlier turns.

    The session grows to each checkpoint by appending copies of the two events a real
    turn stores (user message, answer) through the public ``append_event``, then
    ``per_checkpoint`` real turns are timed one by one.
    """
    points = sorted({int(p) for p in str(checkpoints).split(",") if p.strip()})
    agent, script = answering_agent(side)
    runner, service = runner_for(side, agent)
    scratch = await new_session(service)
    await run_turn(side, runner, scratch.id, "What is the answer?")
    template = (await stored(service, scratch.id)).events
    check(len(said(template)) == 2, f"a turn stored {len(said(template))} events with content")

    session = await new_session(service)
    done = 0  # turns in the session
    xs: list[float] = []
    ys: list[float] = []
    series: list[list[float]] = []
    for point in points:
        # A fresh copy: the turns since the last checkpoint were stored by the runner,
        # and a service may refuse appends through a session object that missed them.
        session = await stored(service, session.id)
        for i in range(done, point):
            for tmpl in template:
                event = tmpl.model_copy(
                    deep=True,
                    update={
                        "id": type(tmpl).new_id(),
                        "invocation_id": f"prefill-{i}",
                        "timestamp": time.time(),
                    },
                )
                await service.append_event(session, event)
        done = max(done, point)
        gc.collect()
        times = []
        for _ in range(per_checkpoint):
            t0 = now()
            events = await run_turn(side, runner, session.id, "And now?")
            times.append((now() - t0) * 1e6)
            check(text_of(events[-1]) == ANSWER, f"wrong answer {text_of(events[-1])!r}")
            expected = 2 * done + 1  # the whole history and the new message
            got = script.last.n_contents if script.last else -1
            check(got == expected, f"model saw {got} contents after {done} turns, not {expected}")
            xs.append(done)
            ys.append(times[-1])
            done += 1
        series.append([point, statistics.median(times)])
    saved = said((await stored(service, session.id)).events)
    check(len(saved) == 2 * done, f"stored {len(saved)} events with content, not {2 * done}")
    return {
        "metrics": {
            "us_per_earlier_turn": _slope(xs, ys),
            "us_first_turn": series[0][1],
            "us_last_checkpoint": series[-1][1],
        },
        "series": {"earlier_turns_vs_us_per_turn": series},
        "check": {
            "ok": True,
            "detail": f"{done} turns in one session; the model saw the whole history each turn",
        },
    }


def _get_weather(calls: list[str]) -> Callable[..., dict[str, Any]]:
    def get_weather(city: str) -> dict[str, Any]:
        """Returns the current weather for a city.

        Args:
            city: The city's name.
        """
        calls.append(city)
        return {"city": city, "forecast": "sunny", "temp_c": 21}

    return get_weather


async def scenario_b(side: Side, turns: int = 200, warmup: int = 10) -> dict[str, Any]:
    """b. A turn with one function tool call, then the answer."""
    calls: list[str] = []

    def reply(info: Info) -> Reply:
        if info.last_response is not None:
            r = info.last_response
            return Text(f"It is {r['forecast']} in {r['city']}, {r['temp_c']} C.")
        return Call("get_weather", {"city": "Paris"})

    model = side.model(reply)
    agent = side.LlmAgent(
        name="weather",
        model=model,
        instruction="Use get_weather to answer.",
        tools=[_get_weather(calls)],
    )
    runner, service = runner_for(side, agent)

    elapsed, session, events = await timed_new_session_turns(
        side, runner, service, "Weather in Paris?", turns, warmup
    )
    events = said(events)
    check(len(calls) == turns + warmup, f"tool ran {len(calls)}x for {turns + warmup} turns")
    check(len(events) == 3, f"expected call, response, answer; got {len(events)} events")
    check([c.name for c in events[0].get_function_calls()] == ["get_weather"], "no tool call")
    responses = events[1].get_function_responses()
    check(
        len(responses) == 1 and dict(responses[0].response or {}).get("forecast") == "sunny",
        "tool result missing from the function response event",
    )
    check(text_of(events[2]) == "It is sunny in Paris, 21 C.", f"answer {text_of(events[2])!r}")
    check(script_calls(model) == 2 * (turns + warmup), "model not called twice per turn")
    saved = said((await stored(service, session.id)).events)
    check(len(saved) == 4, f"stored {len(saved)} events with content, expected 4")
    return {
        "metrics": {"us_per_turn": elapsed / turns * 1e6},
        "check": {"ok": True, "detail": f"tool ran {len(calls)}x; answer used its result"},
    }


def script_calls(model: Any) -> int:
    return int(model.script.calls)


_OUTCOME_KEYS = ("agent_a_outcome", "agent_b_outcome", "agent_c_outcome")
_GUARDS = {"AgentB": ("agent_a_outcome", "agent_b_outcome"), "AgentC": _OUTCOME_KEYS[1:]}
_D_INSTRUCTION = (
    "You are Agent D. Outcomes: Agent A -> {agent_a_outcome}, Agent B -> {agent_b_outcome}, "
    "Agent C -> {agent_c_outcome}. Output one summary sentence."
)
_STATUS = re.compile(r'Agent ([ABC]) -> \{"status": "(\w+)"')
_SUMMARY = "Agent A failed, B and C were skipped, D completed."


async def scenario_c(side: Side, runs: int = 200, warmup: int = 10) -> dict[str, Any]:
    """c. PoC 6: Sequential[A, B, C, D]; A fails via its tool and output_key, B and C are
    skipped by a before_agent_callback, D's instruction is templated from state."""
    tool_runs: list[int] = []

    def failing_tool() -> dict[str, Any]:
        """Performs Agent A's task. In this experiment it always fails."""
        tool_runs.append(1)
        return {"status": "error", "message": "Simulated failure"}

    def a_reply(info: Info) -> Reply:
        if info.last_response is not None:
            message = f"Tool failed: {info.last_response.get('message')}"
            return Text(json.dumps({"status": "failure", "message": message}))
        return Call("failing_tool", {})

    def skip_if_previous_failed(callback_context: Any) -> Any:
        previous, own = _GUARDS[callback_context.agent_name]
        raw = callback_context.state.get(previous)
        try:
            status = json.loads(raw).get("status") if raw else None
        except (TypeError, ValueError):
            status = None
        if status == "success":
            return None
        outcome = json.dumps({"status": "skipped", "message": f"{previous} is {status!r}"})
        callback_context.state[own] = outcome
        # The content repeats the outcome: google-adk 2.13 also applies output_key to a
        # before_agent_callback's content (1.x and pyadk do not), so both end up equal.
        return side.types.Content(role="model", parts=[side.types.Part(text=outcome)])

    def d_reply(info: Info) -> Reply:
        statuses = dict(_STATUS.findall(info.system))
        if statuses == {"A": "failure", "B": "skipped", "C": "skipped"}:
            return Text(_SUMMARY)
        return Text(f"unexpected outcomes {statuses}")

    def guarded_reply(info: Info) -> Reply:
        return Text(json.dumps({"status": "success", "message": "ran"}))

    models = {
        n: side.model(r)
        for n, r in [("A", a_reply), ("B", guarded_reply), ("C", guarded_reply), ("D", d_reply)]
    }
    agent_a = side.LlmAgent(
        name="AgentA",
        model=models["A"],
        instruction="Call your tool, report JSON.",
        tools=[failing_tool],
        output_key="agent_a_outcome",
    )
    agent_b, agent_c = (
        side.LlmAgent(
            name=f"Agent{x}",
            model=models[x],
            instruction="Report JSON.",
            before_agent_callback=skip_if_previous_failed,
            output_key=f"agent_{x.lower()}_outcome",
        )
        for x in "BC"
    )
    agent_d = side.LlmAgent(name="AgentD", model=models["D"], instruction=_D_INSTRUCTION)
    sequence = side.SequentialAgent(
        name="ErrorTestSequence", sub_agents=[agent_a, agent_b, agent_c, agent_d]
    )
    runner, service = runner_for(side, sequence)

    elapsed, session, events = await timed_new_session_turns(
        side, runner, service, "Start the sequence.", runs, warmup
    )
    total = runs + warmup
    events = said(events)
    check(len(tool_runs) == total, f"A's tool ran {len(tool_runs)}x for {total} runs")
    check(script_calls(models["A"]) == 2 * total, "A's model not called twice per run")
    check(
        script_calls(models["B"]) == 0 and script_calls(models["C"]) == 0,
        "B or C called its model although it should be skipped",
    )
    check(script_calls(models["D"]) == total, "D's model not called once per run")
    check(text_of(events[-1]) == _SUMMARY, f"D answered {text_of(events[-1])!r}")
    state = (await stored(service, session.id)).state
    statuses = {k: json.loads(state[k])["status"] for k in _OUTCOME_KEYS if k in state}
    check(
        statuses == dict(zip(_OUTCOME_KEYS, ("failure", "skipped", "skipped"), strict=True)),
        f"state outcomes {statuses}",
    )
    authors = [e.author for e in events]
    check(
        authors == ["AgentA", "AgentA", "AgentA", "AgentB", "AgentC", "AgentD"],
        f"event authors {authors}",
    )
    return {
        "metrics": {"us_per_run": elapsed / runs * 1e6},
        "check": {"ok": True, "detail": "A failed, B/C skipped by callback, D saw templated state"},
    }


async def scenario_d(
    side: Side, runs: int = 5, iterations: int = 100, warmup: int = 1
) -> dict[str, Any]:
    """d. LoopAgent, ``iterations`` iterations, ended by the exit_loop tool."""
    counter = {"n": 0}

    def reply(info: Info) -> Reply:
        counter["n"] += 1
        if counter["n"] == iterations:
            return Call("exit_loop", {})
        return Text(f"iteration {counter['n']} done")

    model = side.model(reply)
    worker = side.LlmAgent(
        name="worker",
        model=model,
        instruction="Work; call exit_loop when done.",
        tools=[side.exit_loop],
    )
    loop = side.LoopAgent(name="loop", sub_agents=[worker], max_iterations=2 * iterations)
    runner, service = runner_for(side, loop)

    async def one() -> list[Any]:
        counter["n"] = 0
        session = await new_session(service)
        return await run_turn(side, runner, session.id, "Start working.")

    for _ in range(warmup):
        await one()
    gc.collect()
    t0 = now()
    for _ in range(runs):
        events = await one()
    elapsed = now() - t0
    events = said(events)
    check(counter["n"] == iterations, f"model called {counter['n']}x, not {iterations}")
    check(len(events) == iterations + 1, f"{len(events)} events for {iterations} iterations")
    check(text_of(events[iterations - 2]) == f"iteration {iterations - 1} done", "wrong text")
    last = events[-1]
    check([r.name for r in last.get_function_responses()] == ["exit_loop"], "loop not exited")
    check(bool(last.actions.escalate), "exit_loop did not escalate")
    return {
        "metrics": {"us_per_iteration": elapsed / (runs * iterations) * 1e6},
        "check": {"ok": True, "detail": f"{iterations} iterations, ended by exit_loop"},
    }


async def scenario_e(side: Side, runs: int = 30, branches: int = 16, warmup: int = 2) -> dict:
    """e. ParallelAgent fan-out to ``branches`` LlmAgents."""
    names = [f"branch_{i:02d}" for i in range(branches)]
    models = {n: side.model(lambda info, n=n: Text(f"result from {n}")) for n in names}
    subs = [side.LlmAgent(name=n, model=models[n], instruction=f"You are {n}.") for n in names]
    fanout = side.ParallelAgent(name="fanout", sub_agents=subs)
    runner, service = runner_for(side, fanout)

    elapsed, session, events = await timed_new_session_turns(
        side, runner, service, "Fan out.", runs, warmup
    )
    events = said(events)
    check(sorted(e.author for e in events) == names, "not every branch answered once")
    for e in events:
        check(text_of(e) == f"result from {e.author}", f"{e.author} answered {text_of(e)!r}")
        check(e.branch == f"fanout.{e.author}", f"{e.author} ran in branch {e.branch!r}")
    check(
        all(m.script.calls == runs + warmup for m in models.values()),
        "a branch's model was not called once per run",
    )
    saved = said((await stored(service, session.id)).events)
    check(len(saved) == branches + 1, f"stored {len(saved)} events with content")
    return {
        "metrics": {
            "us_per_branch": elapsed / (runs * branches) * 1e6,
            "us_per_run": elapsed / runs * 1e6,
        },
        "check": {"ok": True, "detail": f"{branches} branches ran, each in its own branch"},
    }


async def scenario_f(side: Side, sessions: int = 1000, warmup: int = 20) -> dict[str, Any]:
    """f. ``sessions`` concurrent sessions, one turn each (the model yields to the loop
    once, as a network call would, so the turns really interleave)."""
    agent, script = answering_agent(side, yield_to_loop=True)
    runner, service = runner_for(side, agent)

    async def batch(n: int) -> tuple[list[Any], list[list[Any]]]:
        made = [await new_session(service) for _ in range(n)]
        gc.collect()
        t0 = now()
        results = await asyncio.gather(
            *(run_turn(side, runner, s.id, "What is the answer?") for s in made)
        )
        batch.elapsed = now() - t0  # type: ignore[attr-defined]
        return made, results

    await batch(warmup)
    script.peak = 0
    made, results = await batch(sessions)
    elapsed = batch.elapsed  # type: ignore[attr-defined]
    wrong = [r for r in map(said, results) if len(r) != 1 or text_of(r[0]) != ANSWER]
    check(not wrong, f"{len(wrong)} of {sessions} turns did not answer correctly")
    check(
        sessions < 2 or script.peak > 1,
        f"turns did not overlap (peak in-flight model calls {script.peak})",
    )
    for s in made[:: max(1, sessions // 50)]:
        saved = said((await stored(service, s.id)).events)
        check(len(saved) == 2, f"session stored {len(saved)} events with content, not 2")
    return {
        "metrics": {"turns_per_s": sessions / elapsed},
        "check": {"ok": True, "detail": f"{sessions} turns; up to {script.peak} in flight"},
    }


SCENARIOS: dict[str, Callable[..., Any]] = {
    "a_new": scenario_a_new,
    "a_reused": scenario_a_reused,
    "b": scenario_b,
    "c": scenario_c,
    "d": scenario_d,
    "e": scenario_e,
    "f": scenario_f,
}
