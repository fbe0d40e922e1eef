"""Where pyadk's time goes inside one benchmark scenario, measured in the run itself.

cProfile inflates every Python call about fourfold, and a part timed in a tight loop
runs about twice as fast as it does inside a run (its code and objects stay in the CPU
caches there). This script instead wraps a fixed list of pyadk's components with a
wall-clock timer, runs one scenario of the suite on pyadk, and prints each component's
inclusive time and calls. Components nest (``append_event`` includes ``encode``), and each
wrapper adds about 0.3 µs a call, so the sum is no total. Times are per turn (per
``Runner.run_async`` call) of the scenario's second run in the process, warm-up turns
included.

    python benchmarks/breakdown.py --scenario c
    python benchmarks/breakdown.py --scenario i --size chunks=200
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import functools
import importlib
import inspect
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "adapters"))

import bench_common
import pyadk_side

_TURNS = "turns"
# ("module:attribute path", label): what is timed; a method is wrapped on its class.
COMPONENTS = [
    ("pyadk.runners:Runner.run_async", _TURNS),  # counts the turns (returns at once)
    ("pyadk.runners:Runner._start_turn", "turn start (load, lease, user event)"),
    (
        "pyadk.sessions.in_memory_session_service:InMemorySessionService.create_session",
        "create_session",
    ),
    (
        "pyadk.sessions.in_memory_session_service:InMemorySessionService.append_event",
        "append_event",
    ),
    ("pyadk.sessions.in_memory_session_service:encode", "  encode (inside append)"),
    ("pyadk.agents.base_agent:BaseAgent._handle_before_agent_callback", "before-agent callbacks"),
    ("pyadk.agents.base_agent:BaseAgent._outcome_event", "outcome events built"),
    ("pyadk.flows.base_llm_flow:BaseLlmFlow._preprocess_silently", "request processors"),
    ("pyadk.flows.processors.contents:ContentsRequestProcessor.process", "  contents"),
    ("pyadk.flows.processors.instructions:InstructionsRequestProcessor.process", "  instructions"),
    ("pyadk.flows.base_llm_flow:BaseLlmFlow._process_tools", "  tools"),
    ("pyadk.flows.functions:handle_function_calls_async", "function calls"),
    ("pyadk.flows.base_llm_flow:_finalize_event", "response events built"),
]

_clock = time.perf_counter


class _Counters:
    """Inclusive seconds and calls per label."""

    def __init__(self) -> None:
        self.spent: collections.Counter[str] = collections.Counter()
        self.calls: collections.Counter[str] = collections.Counter()

    def add(self, label: str, start: float) -> None:
        self.spent[label] += _clock() - start
        self.calls[label] += 1

    def clear(self) -> None:
        self.spent.clear()
        self.calls.clear()


def _wrap(target: str, label: str, counters: _Counters) -> None:
    """Replaces ``target`` ("module:attribute path") with a timed wrapper."""
    module_name, path = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *parents, name = path.split(".")
    for parent in parents:
        owner = getattr(owner, parent)
    original = inspect.getattr_static(owner, name)
    is_static = isinstance(original, staticmethod)
    function = original.__func__ if is_static else original
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = _clock()
            try:
                return await function(*args, **kwargs)
            finally:
                counters.add(label, start)

    else:

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            start = _clock()
            try:
                return function(*args, **kwargs)
            finally:
                counters.add(label, start)

    wrapper: Callable[..., Any] = staticmethod(timed) if is_static else timed  # type: ignore[assignment]
    setattr(owner, name, wrapper)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="c", choices=sorted(bench_common.scenarios()))
    parser.add_argument("--size", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    counters = _Counters()
    for target, label in COMPONENTS:
        _wrap(target, label, counters)
    sizes = bench_common._parse_sizes(args.size)
    # A first run pays every first-use cost (validators, tool declarations, generated
    # codecs); only the second one is counted.
    asyncio.run(bench_common.run_scenario(pyadk_side.SIDE, args.scenario, sizes))
    counters.clear()
    result = asyncio.run(bench_common.run_scenario(pyadk_side.SIDE, args.scenario, sizes))
    if not result["check"]["ok"]:
        print(f"check failed: {result['check']['detail']}", file=sys.stderr)
        return 1
    spent, calls = counters.spent, counters.calls
    turns = calls.pop(_TURNS, 0) or 1
    spent.pop(_TURNS, None)
    print(f"scenario {args.scenario}: {result['metrics']} (with the wrappers in place)")
    print(f"per turn ({turns} turns):")
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {label:40s} {seconds / turns * 1e6:9.1f} µs  {calls[label] / turns:6.1f} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
