"""Where tasks run: local processes (default) or a Ray cluster (``--backend ray``).

Both run each task in a fresh ``python -m pyadk.contrib.bench.worker`` process, killed
when it runs over its timeout; Ray only decides on which machine.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from pyadk.contrib.bench.records import TaskPayload, TaskResult
from pyadk.contrib.structured_workflow.sandbox import SandboxLimits, pyadk_path, run_process

ResultCallback = Callable[[TaskResult], Awaitable[None] | None]
STARTED = "started"
KILL_GRACE = 60.0
"""Seconds a worker gets beyond the task and verification timeouts before it is killed."""


def hard_timeout(payload: TaskPayload) -> float:
    """When the worker process is killed: generation, verification, then a grace period."""
    return payload.timeout + payload.verify_timeout + KILL_GRACE


def failed_result(payload: TaskPayload, reason: str, wall_time: float) -> TaskResult:
    """A result for a task whose worker did not report one."""
    return TaskResult.for_payload(payload, failure_reason=reason, wall_time=wall_time)


def worker_env() -> dict[str, str]:
    """The worker's environment: ours, with pyadk importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [pyadk_path(), env.get("PYTHONPATH")]))
    return env


async def run_worker_process(payload: TaskPayload) -> TaskResult:
    """Runs one payload in a worker process and returns its result."""
    started = time.monotonic()
    task_dir = Path(payload.task_dir)
    task_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench_result_") as folder:
        result_file = Path(folder) / "result.json"
        limits = SandboxLimits(
            timeout=hard_timeout(payload), memory_mb=None, max_output_chars=20_000
        )
        process = await run_process(
            [sys.executable, "-m", "pyadk.contrib.bench.worker", str(result_file)],
            cwd=task_dir,
            limits=limits,
            stdin_data=payload.model_dump_json().encode(),
            env=worker_env(),
        )
        (task_dir / "worker.log").write_text(process.stdout + process.stderr, encoding="utf-8")
        elapsed = time.monotonic() - started
        if result_file.is_file():
            return TaskResult.model_validate_json(result_file.read_text(encoding="utf-8"))
    if process.status == "timeout":
        return failed_result(payload, f"timeout: worker killed after {limits.timeout:g} s", elapsed)
    tail = (process.stderr or process.stdout).strip()[-1500:]
    return failed_result(payload, f"worker_error: exit {process.exit_code}: {tail}", elapsed)


async def _notify(callback: ResultCallback | None, result: TaskResult) -> None:
    if callback is None:
        return
    outcome = callback(result)
    if asyncio.iscoroutine(outcome):
        await outcome


class LocalBackend:
    """Runs tasks as local worker processes, at most ``concurrency`` at a time."""

    name = "local"

    def __init__(self, concurrency: int = 1) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self.max_running = 0
        self._running = 0

    async def run(
        self,
        payloads: Sequence[TaskPayload],
        on_result: ResultCallback | None = None,
        on_start: Callable[[TaskPayload], None] | None = None,
    ) -> list[TaskResult]:
        """Runs every payload; results in payload order."""
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(payload: TaskPayload) -> TaskResult:
            async with semaphore:
                self._running += 1
                self.max_running = max(self.max_running, self._running)
                if on_start is not None:
                    on_start(payload)
                try:
                    result = await run_worker_process(payload)
                finally:
                    self._running -= 1
                await _notify(on_result, result)
                return result

        return list(await asyncio.gather(*(one(p) for p in payloads)))


def _ray_task(payload_json: str) -> str:
    """Ray remote body: runs the payload in a worker process on the Ray node."""
    payload = TaskPayload.model_validate_json(payload_json)
    return asyncio.run(run_worker_process(payload)).model_dump_json()


class RayBackend:
    """Runs tasks on a Ray cluster (``ray.init(address)``; a local one when none is given).

    Each task needs ``num_cpus`` CPUs; at most ``concurrency`` are in flight. Solutions
    and logs stay on the node that ran the task (in ``task_dir``); results come back.
    """

    name = "ray"

    def __init__(
        self, concurrency: int = 1, address: str | None = None, num_cpus: float = 1.0
    ) -> None:
        try:
            import ray
        except ImportError as error:
            raise ImportError(
                "The Ray backend needs ray: pip install 'pyadk[bench-ray]' (or ray)."
            ) from error
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.ray: Any = ray
        self.concurrency = concurrency
        self.address = address
        self.num_cpus = num_cpus

    def _ensure_ray(self) -> None:
        if not self.ray.is_initialized():
            if self.address is None:  # a cluster of our own: no usage reports sent out
                os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            self.ray.init(
                address=self.address,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": pyadk_path()}},
            )

    async def run(
        self,
        payloads: Sequence[TaskPayload],
        on_result: ResultCallback | None = None,
        on_start: Callable[[TaskPayload], None] | None = None,
    ) -> list[TaskResult]:
        """Runs every payload on the cluster; results in payload order."""
        self._ensure_ray()
        remote = self.ray.remote(num_cpus=self.num_cpus, max_retries=0)(_ray_task)
        results: dict[int, TaskResult] = {}
        pending: dict[Any, int] = {}
        queue = list(enumerate(payloads))
        while queue or pending:
            while queue and len(pending) < self.concurrency:
                index, payload = queue.pop(0)
                if on_start is not None:
                    on_start(payload)
                pending[remote.remote(payload.model_dump_json())] = index
            done, _ = await asyncio.to_thread(
                self.ray.wait, list(pending), num_returns=1, timeout=None
            )
            for ref in done:
                index = pending.pop(ref)
                try:
                    result = TaskResult.model_validate_json(
                        await asyncio.to_thread(self.ray.get, ref)
                    )
                except Exception as error:
                    result = failed_result(payloads[index], f"worker_error: ray: {error}", 0.0)
                results[index] = result
                await _notify(on_result, result)
        return [results[i] for i in range(len(payloads))]


def make_backend(name: str, concurrency: int, ray_address: str | None = None) -> Any:
    """``local`` or ``ray``."""
    if name == "local":
        return LocalBackend(concurrency)
    if name == "ray":
        return RayBackend(concurrency, address=ray_address)
    raise ValueError(f"Unknown backend {name!r}: use 'local' or 'ray'.")
