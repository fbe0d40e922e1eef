"""What the benchmark scenarios share: the side description, the fake model, helpers.

pyadk keeps google-adk's public API, so one scenario body drives both frameworks: each
side module (``pyadk_side.py``, ``adk_side.py``) hands in a :class:`Side` that names its
framework's classes, and the same code (``scenarios_agents.py`` for a-f,
``scenarios_system.py`` for g-j) builds the agents, runs the turns, times them and checks
the behaviour. Both sides therefore do the same work with the same fake model code
(:func:`make_fake_model_class`): an instant in-process ``BaseLlm`` subclass that returns
scripted responses with usage metadata.

Each scenario returns ``{"metrics": {...}, "check": {...}, "series": ..., "notes": ...}``.
A behaviour check that fails raises :class:`CheckFailed`, so a fast wrong answer cannot
pass. These modules import neither framework; they run under both interpreters.

Command line (what ``benchmarks/run.py`` calls, once per scenario, side and repeat)::

    python benchmarks/adapters/pyadk_side.py --scenario b --size turns=200
    python benchmarks/adapters/pyadk_side.py --scenario a_new --profile   # cProfile top

prints one line ``BENCH_RESULT {json}`` on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import re
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

APP = "bench"
USER = "user"
ANSWER = "The answer is 42: the scripted model replied without calling any tool."
RESULT_PREFIX = "BENCH_RESULT "


class CheckFailed(AssertionError):
    """A scenario did not behave as it must (wrong answer, tool not run, ...)."""


class Skip(Exception):
    """The scenario cannot run on this side (e.g. a missing optional backend)."""


# --------------------------------------------------------------------------------------
# What a side provides
# --------------------------------------------------------------------------------------
@dataclass
class Side:
    """One framework's classes, under the names both frameworks share."""

    name: str
    version: str
    types: Any
    BaseLlm: Any
    LlmResponse: Any
    LlmAgent: Any
    SequentialAgent: Any
    LoopAgent: Any
    ParallelAgent: Any
    Runner: Any
    InMemorySessionService: Any
    RunConfig: Any
    StreamingMode: Any
    exit_loop: Any
    sqlite_backends: dict[str, Callable[[str], Any]]
    """Persistent session services on a SQLite file: backend name -> factory(path)."""
    import_snippet: str
    """Python code importing ``LlmAgent`` and ``InMemoryRunner`` (scenario j)."""
    sqlite_skip_reason: str | None = None
    fake_model_class: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.fake_model_class = make_fake_model_class(self.BaseLlm, self.LlmResponse, self.types)

    def model(self, reply: Callable[[Info], Reply], *, yield_to_loop: bool = False) -> Any:
        """A fake model answering with ``reply(info)`` for each request."""
        return self.fake_model_class(script=Script(reply, yield_to_loop=yield_to_loop))

    def user_message(self, text: str) -> Any:
        return self.types.Content(role="user", parts=[self.types.Part(text=text)])


# --------------------------------------------------------------------------------------
# The fake model
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Streamed:
    chunks: tuple[str, ...]


Reply = Text | Call | Streamed


@dataclass
class Info:
    """What the fake model read from a request."""

    system: str
    n_contents: int
    last_response: dict[str, Any] | None
    """The function response in the request's last content, if any."""


class Script:
    """A model's reply function and counters (plain object: no pydantic on the hot path)."""

    def __init__(self, reply: Callable[[Info], Reply], *, yield_to_loop: bool = False):
        self.reply = reply
        self.yield_to_loop = yield_to_loop
        self.calls = 0
        self.last: Info | None = None
        self.inflight = 0
        self.peak = 0

    def __call__(self, info: Info) -> Reply:
        self.calls += 1
        self.last = info
        return self.reply(info)


def _request_info(llm_request: Any) -> Info:
    si = llm_request.config.system_instruction if llm_request.config else None
    if si is None:
        system = ""
    elif isinstance(si, str):
        system = si
    else:
        system = "".join(p.text or "" for p in si.parts or [])
    contents = llm_request.contents
    last_response = None
    if contents:
        for part in contents[-1].parts or []:
            if part.function_response is not None:
                last_response = dict(part.function_response.response or {})
    return Info(system=system, n_contents=len(contents), last_response=last_response)


def make_fake_model_class(base_llm: Any, llm_response: Any, types: Any) -> Any:
    """An instant ``BaseLlm`` subclass for one framework: scripted replies, usage metadata.

    Without streaming it yields one response; with ``stream=True`` a ``Streamed`` reply
    yields one partial response per chunk, then the aggregated final response.
    """

    def usage(n_contents: int) -> Any:
        prompt = 12 * n_contents + 40
        return types.GenerateContentResponseUsageMetadata(
            prompt_token_count=prompt, candidates_token_count=16, total_token_count=prompt + 16
        )

    def final(parts: list[Any], n_contents: int) -> Any:
        return llm_response(
            content=types.Content(role="model", parts=parts),
            usage_metadata=usage(n_contents),
            finish_reason=types.FinishReason.STOP,
            turn_complete=True,
        )

    class FakeModel(base_llm):  # type: ignore[misc, valid-type]
        model: str = "bench-fake"
        script: Any

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            script = self.script
            if script.yield_to_loop:  # stands for the network wait: other turns run
                script.inflight += 1
                script.peak = max(script.peak, script.inflight)
                await asyncio.sleep(0)
                script.inflight -= 1
            info = _request_info(llm_request)
            reply = script(info)
            if isinstance(reply, Text):
                yield final([types.Part(text=reply.text)], info.n_contents)
            elif isinstance(reply, Call):
                call = types.FunctionCall(name=reply.name, args=dict(reply.args))
                yield final([types.Part(function_call=call)], info.n_contents)
            elif isinstance(reply, Streamed):
                if stream:
                    for chunk in reply.chunks:
                        yield llm_response(
                            content=types.Content(role="model", parts=[types.Part(text=chunk)]),
                            partial=True,
                        )
                yield final([types.Part(text="".join(reply.chunks))], info.n_contents)
            else:  # pragma: no cover - a bug in a scenario
                raise TypeError(f"unknown reply {reply!r}")

    return FakeModel


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def said(events: list[Any]) -> list[Any]:
    """The events with content (drops bookkeeping events a framework may add, such as
    end-of-agent markers), in order."""
    return [e for e in events if e.content is not None and e.content.parts]


def text_of(event: Any) -> str:
    content = event.content
    if content is None or not content.parts:
        return ""
    return "".join(p.text or "" for p in content.parts if not getattr(p, "thought", False))


async def run_turn(
    side: Side, runner: Any, session_id: str, text: str, run_config: Any = None
) -> list[Any]:
    kwargs: dict[str, Any] = {}
    if run_config is not None:
        kwargs["run_config"] = run_config
    return [
        event
        async for event in runner.run_async(
            user_id=USER, session_id=session_id, new_message=side.user_message(text), **kwargs
        )
    ]


async def timed_new_session_turns(
    side: Side, runner: Any, service: Any, text: str, count: int, warmup: int
) -> tuple[float, Any, list[Any]]:
    """Times ``count`` turns, each in a new session, after ``warmup`` untimed ones:
    (seconds, the last session, its turn's events)."""

    async def one() -> tuple[Any, list[Any]]:
        session = await new_session(service)
        return session, await run_turn(side, runner, session.id, text)

    for _ in range(warmup):
        await one()
    gc.collect()
    t0 = now()
    for _ in range(count):
        session, events = await one()
    return now() - t0, session, events


def runner_for(side: Side, agent: Any, session_service: Any = None) -> tuple[Any, Any]:
    service = session_service or side.InMemorySessionService()
    return side.Runner(app_name=APP, agent=agent, session_service=service), service


async def new_session(service: Any) -> Any:
    return await service.create_session(app_name=APP, user_id=USER)


async def stored(service: Any, session_id: str) -> Any:
    session = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
    check(session is not None, f"session {session_id} was not stored")
    return session


def now() -> float:
    return time.perf_counter()


def rss_bytes() -> int:
    """Resident set size of this process (Linux /proc; ru_maxrss elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # pragma: no cover - not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --------------------------------------------------------------------------------------
# Scenarios (their bodies: scenarios_agents.py, a-f, and scenarios_system.py, g-j)
# --------------------------------------------------------------------------------------


def answering_agent(side: Side, **kw: Any) -> tuple[Any, Script]:
    """An LlmAgent whose model always answers ``ANSWER``, and the model's script."""
    model = side.model(lambda info: Text(ANSWER), **kw)
    agent = side.LlmAgent(
        name="assistant",
        model=model,
        description="Answers questions.",
        instruction="You are a helpful assistant. Answer briefly.",
    )
    return agent, model.script


def scenarios() -> dict[str, Callable[..., Any]]:
    """Every scenario by name, a to j (the modules next to this one)."""
    import scenarios_agents
    import scenarios_system

    return {**scenarios_agents.SCENARIOS, **scenarios_system.SCENARIOS}


async def run_scenario(side: Side, name: str, sizes: dict[str, Any] | None = None) -> dict:
    """Runs one scenario; returns its result with ``check.ok`` False on a failed check and
    ``skipped`` set when the side cannot run it."""
    base = {"scenario": name, "side": side.name, "version": side.version, "sizes": sizes or {}}
    try:
        result = await scenarios()[name](side, **(sizes or {}))
    except Skip as exc:
        return {**base, "skipped": str(exc), "metrics": {}, "check": {"ok": True, "detail": ""}}
    except CheckFailed as exc:
        return {**base, "metrics": {}, "check": {"ok": False, "detail": str(exc)}}
    return {**base, **result}


def _parse_sizes(items: list[str]) -> dict[str, Any]:
    sizes: dict[str, Any] = {}
    for item in items:
        key, _, value = item.partition("=")
        sizes[key] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return sizes


def main(side: Side, argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=f"Benchmark scenarios on {side.name}.")
    parser.add_argument("--scenario", required=True, choices=sorted(scenarios()))
    parser.add_argument("--size", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--profile",
        nargs="?",
        const=30,
        type=int,
        metavar="N",
        help="run under cProfile and print the top N functions to stderr",
    )
    args = parser.parse_args(argv)
    sizes = _parse_sizes(args.size)
    try:
        if args.profile:
            profiler = cProfile.Profile()
            result = profiler.runcall(asyncio.run, run_scenario(side, args.scenario, sizes))
            stats = pstats.Stats(profiler, stream=sys.stderr)
            stats.sort_stats("tottime").print_stats(args.profile)
            stats.sort_stats("cumulative").print_stats(args.profile)
        else:
            result = asyncio.run(run_scenario(side, args.scenario, sizes))
    except Exception as exc:  # a crash is a failed check, reported, not a traceback only
        traceback.print_exc()
        result = {
            "scenario": args.scenario,
            "side": side.name,
            "metrics": {},
            "check": {"ok": False, "detail": f"crashed: {type(exc).__name__}: {exc}"},
        }
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return 0 if result["check"]["ok"] else 1


__all__ = [
    "Call",
    "CheckFailed",
    "Info",
    "Side",
    "Skip",
    "Streamed",
    "Text",
    "main",
    "run_scenario",
    "scenarios",
]
