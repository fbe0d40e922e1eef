"""The Ray backend, on a local Ray cluster started by the test (ray.init()).

The cluster stays on 127.0.0.1: Ray reads these variables when it is imported (a local
cluster on the loopback address, as on macOS) and when it starts (no usage reports).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench_fixtures import code_generator, config
from workflow_fakes import ref

from pyadk.contrib.bench.backends import RayBackend, make_backend
from pyadk.contrib.bench.report import read_metadata, read_results
from pyadk.contrib.bench.runner import run_benchmark
from pyadk.contrib.bench.worker import generator_spec

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
ray = pytest.importorskip("ray", reason="ray is not installed (it is in the dev extra)")


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[None]:
    ray.init(
        num_cpus=2, object_store_memory=100_000_000, include_dashboard=False, log_to_driver=False
    )
    try:
        assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}
        yield
    finally:
        ray.shutdown()


async def test_ray_backend_runs_the_tasks(tmp_path: Path, local_cluster: None) -> None:
    generators = [code_generator(), generator_spec(f"chatty={ref('create_chatty_generator')}")]
    run = await run_benchmark(config(tmp_path, generators, backend="ray", concurrency=2))
    assert [(r.generator, r.task_id, r.passed) for r in run.results] == [
        ("code", "hello", True),
        ("chatty", "hello", False),
        ("code", "add_tool", True),
        ("chatty", "add_tool", False),
    ]
    assert {r.failure_reason for r in run.results if not r.passed} == {
        "no_solution: the generator wrote no code"
    }
    assert sorted(r.model_dump_json() for r in read_results(tmp_path)) == sorted(
        r.model_dump_json() for r in run.results
    )
    assert read_metadata(tmp_path).backend == "ray"
    assert (tmp_path / "report.md").is_file()


async def test_ray_backend_records_timeouts(tmp_path: Path, local_cluster: None) -> None:
    cfg = config(
        tmp_path,
        [generator_spec(f"hanging={ref('create_hanging_generator')}")],
        backend="ray",
        timeout=1.0,
    )
    cfg.task_set = cfg.task_set.select(["hello"])
    [result] = (await run_benchmark(cfg)).results
    assert result.failure_reason == "timeout: the generator ran over 1 s"


def test_backend_choice_and_validation() -> None:
    assert isinstance(make_backend("ray", 2), RayBackend)
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        RayBackend(0)
    with pytest.raises(ValueError, match="Unknown backend 'spark'"):
        make_backend("spark", 1)
