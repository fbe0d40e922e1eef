"""Runs one task with one generator (in its own process): generate, find, verify.

``python -m pyadk.contrib.bench.worker RESULT_FILE`` reads a TaskPayload as JSON on
stdin and writes a TaskResult as JSON to RESULT_FILE.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
import time
from pathlib import Path
from typing import Any

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.contrib._loading import is_reference, load_object
from pyadk.contrib.bench.metrics import MetricsPlugin
from pyadk.contrib.bench.records import GeneratorSpec, TaskPayload, TaskResult
from pyadk.contrib.bench.verification import verify_solution
from pyadk.contrib.structured_workflow import schemas
from pyadk.contrib.structured_workflow._agent_runner import describe_event
from pyadk.contrib.structured_workflow.code_extraction import extract_code
from pyadk.contrib.structured_workflow.model_specs import resolve_model
from pyadk.models.base_llm import BaseLlm
from pyadk.runners import InMemoryRunner

logger = logging.getLogger(__name__)

BUILTIN_GENERATORS = {
    "structured": "pyadk.contrib.structured_workflow:create_structured_workflow_adk_generator",
    "baseline": "pyadk.contrib.structured_workflow:create_baseline_workflow_adk_generator",
}
SOLUTION_FILE = "agent.py"
TRANSCRIPT_FILE = "transcript.txt"
"""Each task folder gets the generator's events, one or more lines each."""


def generator_spec(text: str, options: dict[str, Any] | None = None) -> GeneratorSpec:
    """``structured``, ``baseline``, ``ref`` or ``name=ref`` as a GeneratorSpec."""
    name, sep, ref = text.partition("=")
    if not sep:
        name, ref = text, text
    ref = BUILTIN_GENERATORS.get(ref, ref)
    if not is_reference(ref):
        known = ", ".join(BUILTIN_GENERATORS)
        raise ValueError(
            f"Unknown generator {text!r}: use {known}, module:factory or file.py:factory."
        )
    if name == ref:
        name = ref.rpartition(":")[2]
    return GeneratorSpec(name=name, ref=ref, options=dict(options or {}))


def build_generator(spec: GeneratorSpec, model: BaseLlm | None, extra: dict[str, Any]) -> BaseAgent:
    """The generator agent: the referenced agent, or the factory called with ``model`` and
    the options (``spec.options`` then ``extra``) its signature accepts."""
    target = load_object(spec.ref)
    if isinstance(target, BaseAgent):
        return target
    if not callable(target):
        raise TypeError(f"{spec.ref} is neither an agent nor a factory")
    options = {**extra, **spec.options}
    parameters = inspect.signature(target).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        options = {k: v for k, v in options.items() if k in parameters}
    agent = target(model if model is not None else "", **options)
    if not isinstance(agent, BaseAgent):
        raise TypeError(f"{spec.ref} returned {type(agent).__name__}, not an agent")
    return agent


def find_solution(state: dict[str, Any], final_text: str, task_dir: Path) -> Path | None:
    """The generator's solution file: ``solution_path`` in state, else ``agent_code``, else
    the code in its final answer (written to ``task_dir/agent.py``)."""
    recorded = state.get(schemas.SOLUTION_PATH)
    if recorded and Path(str(recorded)).is_file():
        return Path(str(recorded))
    code = state.get(schemas.AGENT_CODE) or extract_code(final_text)
    if not code:
        return None
    path = task_dir / SOLUTION_FILE
    path.write_text(str(code), encoding="utf-8")
    return path


async def run_task(payload: TaskPayload) -> TaskResult:
    """Runs the generator on the task (bounded by ``payload.timeout``), then verifies."""
    started = time.monotonic()
    task_dir = Path(payload.task_dir)
    task_dir.mkdir(parents=True, exist_ok=True)
    result = TaskResult.for_payload(payload)
    metrics = MetricsPlugin()
    state: dict[str, Any] = {}
    final_text = ""
    transcript = (task_dir / TRANSCRIPT_FILE).open("w", encoding="utf-8")
    try:
        model = resolve_model(payload.model)
        extra = {
            "temperature": payload.temperature,
            "seed": payload.seed,
            "output_dir": str(task_dir),
            "workspace_root": str(task_dir / "workspaces"),
        }
        agent = build_generator(payload.generator, model, extra)
        runner = InMemoryRunner(agent, app_name="bench", plugins=[metrics])
        session = await runner.session_service.create_session(
            app_name="bench",
            user_id="bench",
            state={
                schemas.OUTPUT_DIR: str(task_dir),
                "workspace_root": str(task_dir / "workspaces"),
            },
        )
        try:
            async with asyncio.timeout(payload.timeout):
                async for event in runner.run_async(
                    user_id="bench",
                    session_id=session.id,
                    new_message=types.UserContent(payload.task.request),
                ):
                    for line in describe_event(event):
                        transcript.write(line + "\n")
                    transcript.flush()
                    if event.is_final_response() and event.text:
                        final_text = event.text
        except TimeoutError:
            result.failure_reason = f"timeout: the generator ran over {payload.timeout:g} s"
        except Exception as error:
            logger.exception("Generator %s failed on %s", payload.generator.name, payload.task.id)
            result.failure_reason = f"generator_error: {type(error).__name__}: {error}"
        stored = await runner.session_service.get_session(
            app_name="bench", user_id="bench", session_id=session.id
        )
        state = dict(stored.state) if stored else {}
    except Exception as error:
        result.failure_reason = f"generator_error: {type(error).__name__}: {error}"
    finally:
        transcript.close()
    result.generate_time = time.monotonic() - started
    result.iterations = state.get(schemas.ITERATION)
    verified = state.get(schemas.VERIFIED)
    result.self_verified = verified if isinstance(verified, bool) else None
    result = result.model_copy(update=_metric_fields(metrics))
    solution = find_solution(state, final_text, task_dir)
    if solution is None:
        result.failure_reason = result.failure_reason or "no_solution: the generator wrote no code"
    else:
        result.solution_path = str(solution)
        verify_started = time.monotonic()
        verdict = await verify_solution(payload.task, solution, task_dir, payload.verify_timeout)
        result.verify_time = time.monotonic() - verify_started
        result.passed = verdict.passed
        if not verdict.passed:
            reason = f"verification_failed: {verdict.reason}"
            result.failure_reason = (
                f"{result.failure_reason}; {reason}" if result.failure_reason else reason
            )
        else:
            result.failure_reason = None
    result.wall_time = time.monotonic() - started
    return result


def _metric_fields(metrics: MetricsPlugin) -> dict[str, Any]:
    data = metrics.as_dict()
    return {k: data[k] for k in TaskResult.model_fields if k in data}


def main() -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    result_file = Path(sys.argv[1])
    payload = TaskPayload.model_validate_json(sys.stdin.read())
    result = asyncio.run(run_task(payload))
    result_file.write_text(result.model_dump_json(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
