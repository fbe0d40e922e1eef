"""Benchmark of the embedded model (LocalLlm) on this machine.

    python benchmarks/local_model_bench.py [--threads N] [--backend NAME] [--json out.json]

Measures, in one process: model load time (file verification + runtime load), prompt
and generation speed, time to first token when streaming, time per tool-call request,
tool choice on a fixed set of 25 prompts (the right tool with the right arguments, and
call-or-answer decisions), and pyadk's own overhead as a share of an agent step (Runner +
flow + prompt building + parsing, i.e. step wall time minus the time inside the runtime).

Generation speed is measured from the stream (tokens after the first / time after the
first), so it is the same measure for every backend; llama.cpp's own timings are added
when the backend reports them. The load average is recorded before and after: numbers
vary with the machine and with other load on its cores. Generation is greedy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest
from pyadk.models.local import LocalLlm, _files
from pyadk.models.local._runtime import Runtime
from pyadk.runners import InMemoryRunner


def get_weather(city: str) -> dict:
    """Returns the current weather for a city.

    Args:
      city: the city name.
    """
    return {"city": city, "weather": "sunny", "temperature_c": 21}


def add(a: float, b: float) -> float:
    """Adds two numbers.

    Args:
      a: the first number.
      b: the second number.
    """
    return a + b


def send_email(to: str, subject: str, body: str) -> dict:
    """Sends an email to a recipient.

    Args:
      to: the recipient's address.
      subject: the subject line.
      body: the message.
    """
    return {"status": "sent"}


TOOLS = [get_weather, add, send_email]

# (question, the tool that should be called or None for a direct answer, arguments the
# call must have: values compared as numbers when numeric, else case-insensitively)
DECISIONS: list[tuple[str, str | None, dict[str, Any]]] = [
    ("What's the weather in Paris?", "get_weather", {"city": "Paris"}),
    ("How warm is it in Tokyo right now?", "get_weather", {"city": "Tokyo"}),
    ("Is it raining in London?", "get_weather", {"city": "London"}),
    ("Do I need an umbrella in Berlin today?", "get_weather", {"city": "Berlin"}),
    ("Weather report for Madrid, please.", "get_weather", {"city": "Madrid"}),
    ("What is 17 + 25?", "add", {"a": 17, "b": 25}),
    ("Please add 3.5 and 4", "add", {"a": 3.5, "b": 4}),
    ("Sum 100 and 250 please.", "add", {"a": 100, "b": 250}),
    ("What do you get when you add 8 to 13?", "add", {"a": 8, "b": 13}),
    ("Calculate 1200 plus 34.", "add", {"a": 1200, "b": 34}),
    ("Email bob@example.com with subject Hi saying hello", "send_email", {"to": "bob@example.com"}),
    (
        "Send an email to alice@corp.com about the meeting tomorrow.",
        "send_email",
        {"to": "alice@corp.com"},
    ),
    (
        "Write to carol@mail.org, subject Invoice, that the invoice is paid.",
        "send_email",
        {"to": "carol@mail.org", "subject": "Invoice"},
    ),
    ("Mail dan@team.io to say the build is green.", "send_email", {"to": "dan@team.io"}),
    (
        "Notify eve@shop.com by email that her order shipped.",
        "send_email",
        {"to": "eve@shop.com"},
    ),
    ("Hello! How are you?", None, {}),
    ("What is the capital of France?", None, {}),
    ("Write a haiku about autumn.", None, {}),
    ("Thanks, that's all.", None, {}),
    ("Tell me a joke.", None, {}),
    ("Who wrote Hamlet?", None, {}),
    ("Explain what a Python list is in one sentence.", None, {}),
    ("Translate 'good morning' into Spanish.", None, {}),
    ("What does HTTP stand for?", None, {}),
    ("Give me a name for a pet turtle.", None, {}),
]


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        try:
            return float(actual) == float(expected)
        except (TypeError, ValueError):
            return False
    return str(actual).strip().lower() == str(expected).strip().lower()


def arguments_match(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    """True when ``actual`` has every expected argument with the expected value."""
    return all(k in actual and _same(v, actual[k]) for k, v in expected.items())


class TimedRuntime:
    """Wraps a runtime and adds up the wall time spent inside it."""

    def __init__(self, inner: Runtime) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.seconds = 0.0
        self.timings: list[dict[str, Any]] = []

    def complete(self, prompt, sampling, constraint, on_text):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            completion = self.inner.complete(prompt, sampling, constraint, on_text)
        finally:
            self.seconds += time.perf_counter() - start
        self.timings.append(completion.timings)
        return completion


def measure_load(llm: LocalLlm) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        _files.ensure_model_file(directory=Path(scratch))  # first use: concatenate + sha256
        assembled = time.perf_counter() - start
    start = time.perf_counter()
    path = _files.ensure_model_file()
    ensured = time.perf_counter() - start
    start = time.perf_counter()
    _files.check_file(path, _files.QWEN_CODER_05B.sha256, _files.QWEN_CODER_05B.size)
    full_hash = time.perf_counter() - start
    start = time.perf_counter()
    llm.load()
    loaded = time.perf_counter() - start
    return {
        "first_use_assembly_s": assembled,
        "file_check_s": ensured,
        "full_sha256_s": full_hash,
        "runtime_load_s": loaded,
    }


async def measure_speed(llm: LocalLlm, runtime: TimedRuntime) -> dict[str, float]:
    request = LlmRequest(contents=[types.UserContent("Write a short paragraph about the sea.")])
    request.config.max_output_tokens = 128
    first: list[float] = []
    streamed: list[float] = []
    cpu_start = time.process_time()
    tokens = 0
    for i in range(3):
        request.contents[0] = types.UserContent(f"Write a short paragraph about the sea ({i}).")
        start = time.perf_counter()
        first_at = None
        final = None
        async for response in llm.generate_content_async(request, stream=True):
            if response.partial and first_at is None:
                first_at = time.perf_counter()
            final = response
        end = time.perf_counter()
        assert first_at is not None and final is not None and final.usage_metadata is not None
        generated = final.usage_metadata.candidates_token_count or 0
        tokens += generated
        first.append(first_at - start)
        streamed.append((generated - 1) / (end - first_at))
    cpu = time.process_time() - cpu_start
    results = {
        # Tokens per CPU-second of this process: about what one uncontended core gives,
        # whatever else runs on the machine (includes prompt processing).
        "generation_tok_per_cpu_s": tokens / cpu,
        "generation_tok_s": statistics.median(streamed),
        "time_to_first_token_s": statistics.median(first),
    }
    timings = [t for t in runtime.timings[-3:] if "predicted_per_second" in t]
    if timings:  # llama.cpp's own figures (xllamacpp)
        results["llama_generation_tok_s"] = statistics.median(
            t["predicted_per_second"] for t in timings
        )
        results["llama_prompt_tok_s"] = statistics.median(t["prompt_per_second"] for t in timings)
    return results


async def measure_tool_calls(llm: LocalLlm) -> dict[str, Any]:
    from pyadk.tools import FunctionTool

    tools = [FunctionTool(t) for t in TOOLS]
    right_calls = decisions = calls_expected = 0
    call_seconds: list[float] = []
    misses: list[str] = []
    for question, expected, expected_args in DECISIONS:
        request = LlmRequest(contents=[types.UserContent(question)])
        request.config.system_instruction = "You are a helpful assistant."
        request.append_tools(tools)
        start = time.perf_counter()
        (response,) = [r async for r in llm.generate_content_async(request)]
        elapsed = time.perf_counter() - start
        parts = response.content.parts if response.content else []
        call = next((p.function_call for p in parts or [] if p.function_call), None)
        called = call.name if call is not None else None
        decisions += called == expected
        if expected is not None:
            calls_expected += 1
            call_seconds.append(elapsed)
            args = call.args or {} if call is not None else {}
            right = called == expected and arguments_match(expected_args, args)
            right_calls += right
            if called == expected and not right:
                misses.append(f"{question!r}: {called} with arguments {args}")
        if called != expected:
            misses.append(f"{question!r}: expected {expected}, got {called}")
    return {
        "decisions_correct": f"{decisions}/{len(DECISIONS)}",
        "calls_correct": f"{right_calls}/{calls_expected}",
        "tool_call_request_s": statistics.median(call_seconds),
        "misses": misses,
    }


async def measure_overhead(llm: LocalLlm, runtime: TimedRuntime) -> dict[str, float]:
    agent = LlmAgent(
        name="assistant", model=llm, instruction="You are a helpful assistant.", tools=TOOLS
    )
    runner = InMemoryRunner(agent, app_name="bench")
    session = await runner.session_service.create_session(app_name="bench", user_id="u")
    runtime.seconds = 0.0
    start = time.perf_counter()
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message=types.UserContent("What is 17 + 25?")
    ):
        pass
    total = time.perf_counter() - start
    steps = len(runtime.timings)
    return {
        "agent_turn_s": total,
        "model_s": runtime.seconds,
        "framework_overhead_s": total - runtime.seconds,
        "framework_overhead_share": (total - runtime.seconds) / total,
        "model_calls": float(steps),
    }


async def main(threads: int | None, backend: str = "auto") -> dict[str, Any]:
    llm = LocalLlm(n_threads=threads, backend=backend)
    results: dict[str, Any] = {
        "threads": threads or "default",
        "cores": os.cpu_count(),
        "loadavg_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    results.update(measure_load(llm))
    _progress(results)
    runtime = TimedRuntime(llm.load())
    from pyadk.models.local import local_llm as module

    module._RUNTIMES[llm._settings()] = runtime
    results["backend"] = runtime.backend
    results.update(await measure_speed(llm, runtime))
    _progress(results)
    results.update(await measure_tool_calls(llm))
    _progress(results)
    count = len(runtime.timings)
    results.update(await measure_overhead(llm, runtime))
    results["model_calls"] = len(runtime.timings) - count
    results["loadavg_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return results


def _progress(results: dict[str, Any]) -> None:
    print(json.dumps(results, default=str), file=sys.stderr, flush=True)


def _table(results: dict[str, Any]) -> str:
    rows = ["| measure | value |", "| --- | --- |"]
    for key, value in results.items():
        if key == "misses":
            continue
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        rows.append(f"| {key} | {shown} |")
    rows.extend(f"| miss | {m} |" for m in results.get("misses", []))
    return "\n".join(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--backend", default="auto", help="xllamacpp, llama-cpp-python or auto")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    measured = asyncio.run(main(args.threads, args.backend))
    print(_table(measured))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(measured, out, indent=2)
    sys.exit(0)
