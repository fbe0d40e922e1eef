"""The benchmark runner with the default backend (local worker processes)."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import pytest
from bench_fixtures import code_generator, config, structured_generator
from workflow_fakes import MODEL_REF, ref

from pyadk.contrib.bench import backends
from pyadk.contrib.bench.backends import LocalBackend, RayBackend
from pyadk.contrib.bench.records import TaskPayload
from pyadk.contrib.bench.report import read_metadata, read_results
from pyadk.contrib.bench.runner import payloads_for, run_benchmark
from pyadk.contrib.bench.worker import generator_spec


async def test_run_records_every_task_and_writes_reports(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = await run_benchmark(config(out, [code_generator(), structured_generator()]))
    results = {(r.generator, r.task_id): r for r in read_results(out)}
    assert set(results) == {
        ("code", "hello"),
        ("code", "add_tool"),
        ("structured", "hello"),
        ("structured", "add_tool"),
    }
    assert [r.model_dump() for r in run.results] == [r.model_dump() for r in read_results(out)]
    code_hello = results[("code", "hello")]
    assert code_hello.passed and code_hello.failure_reason is None
    assert code_hello.iterations is None and code_hello.model_calls == 0
    # The fake workflow model always writes the adder: right for add_tool, wrong for hello.
    wrong = results[("structured", "hello")]
    assert not wrong.passed and wrong.self_verified is True
    assert wrong.failure_reason.startswith("verification_failed: command exited 1:")
    assert wrong.failure_reason.endswith("AssertionError: adder")
    right = results[("structured", "add_tool")]
    assert right.passed and right.iterations == 1 and right.model_calls == 6
    assert right.calls_by_agent["Planner"] == 2  # "done" needs no model call
    assert right.wall_time >= right.generate_time + right.verify_time > 0
    assert right.solution_path == str(out / "tasks" / "structured" / "add_tool" / "agent.py")
    # Each task ran in its own folder; the workflow's workspaces were removed.
    assert list((out / "tasks" / "structured" / "add_tool" / "workspaces").iterdir()) == []


async def test_run_metadata_makes_the_run_reproducible(tmp_path: Path) -> None:
    cfg = config(tmp_path, [code_generator()])
    run = await run_benchmark(cfg)
    metadata = read_metadata(tmp_path)
    assert metadata == run.metadata
    assert metadata.task_set == "small"
    assert metadata.task_set_hash == cfg.task_set.content_hash()
    assert metadata.task_ids == ["hello", "add_tool"]
    assert (metadata.model, metadata.model_name) == (MODEL_REF, "workflow-fake")
    assert (metadata.seed, metadata.temperature) == (42, 0.0)
    assert metadata.backend == "local" and metadata.finished_at is not None
    assert metadata.generators[0].ref.endswith("workflow_fakes.py:create_code_generator")
    assert {r.run_id for r in run.results} == {metadata.run_id}
    # Each results.jsonl line carries the settings too, so it stands on its own.
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").open(encoding="utf-8")]
    settings = {(r["model"], r["seed"], r["temperature"], r["task_set_hash"]) for r in lines}
    assert settings == {(MODEL_REF, 42, 0.0, cfg.task_set.content_hash())}


async def test_reports_hold_the_tables_and_the_plot(tmp_path: Path) -> None:
    run = await run_benchmark(config(tmp_path, [code_generator()]))
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| code | 2/2 | 100% |" in markdown
    assert "| hello | code | pass | - | 0 | 0 |" in markdown
    assert f"sha256 `{run.metadata.task_set_hash}`" in markdown
    assert "![pass rate and time per generator](plot.png)" in markdown
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<td>code</td><td>2/2</td><td>100%</td>" in page
    assert (tmp_path / "plot.png").read_bytes().startswith(b"\x89PNG")


async def test_concurrency_limit(tmp_path: Path) -> None:
    cfg = config(
        tmp_path, [code_generator(), generator_spec(f"other={ref('create_code_generator')}")]
    )
    payloads = payloads_for(cfg, "run")
    assert len(payloads) == 4
    one = LocalBackend(concurrency=1)
    await one.run(payloads)
    two = LocalBackend(concurrency=2)
    results = await two.run(payloads)
    assert (one.max_running, two.max_running) == (1, 2)
    assert [(r.generator, r.task_id) for r in results] == [
        (p.generator.name, p.task.id) for p in payloads
    ]


async def test_task_timeout_and_missing_solution(tmp_path: Path) -> None:
    generators = [
        generator_spec(f"hanging={ref('create_hanging_generator')}"),
        generator_spec(f"chatty={ref('create_chatty_generator')}"),
    ]
    cfg = config(tmp_path, generators, timeout=1.0)
    cfg.task_set = cfg.task_set.select(["hello"])
    results = {r.generator: r for r in (await run_benchmark(cfg)).results}
    assert results["hanging"].failure_reason == "timeout: the generator ran over 1 s"
    assert results["chatty"].failure_reason == "no_solution: the generator wrote no code"
    assert not results["hanging"].passed and not results["chatty"].passed


async def test_blocked_worker_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "KILL_GRACE", 1.0)
    cfg = config(
        tmp_path,
        [generator_spec(f"blocking={ref('create_blocking_generator')}")],
        timeout=1.0,
        verify_timeout=1.0,
    )
    [payload] = payloads_for(cfg, "run")[:1]
    result = await backends.run_worker_process(payload)
    assert result.failure_reason == "timeout: worker killed after 3 s"
    assert result.task_id == "hello" and not result.passed
    assert (result.model, result.seed, result.task_set_hash) == (
        MODEL_REF,
        42,
        cfg.task_set.content_hash(),
    )


async def test_generator_errors_are_recorded(tmp_path: Path) -> None:
    cfg = config(tmp_path, [generator_spec(f"missing={ref('no_such_factory')}")])
    result = (await run_benchmark(cfg)).results[0]
    assert result.failure_reason.startswith("generator_error: AttributeError:")
    assert "no_such_factory" in result.failure_reason


async def test_any_agent_instance_is_a_generator(tmp_path: Path) -> None:
    generators = [
        generator_spec(f"instance={ref('code_agent')}"),
        generator_spec(f"number={ref('NOT_A_GENERATOR')}"),
        generator_spec(f"nothing={ref('create_nothing')}"),
    ]
    results = {
        (r.generator, r.task_id): r
        for r in (await run_benchmark(config(tmp_path, generators))).results
    }
    assert results[("instance", "hello")].passed and results[("instance", "add_tool")].passed
    number = results[("number", "hello")].failure_reason or ""
    assert number.startswith("generator_error: TypeError:")
    assert number.endswith(":NOT_A_GENERATOR is neither an agent nor a factory")
    nothing = results[("nothing", "add_tool")].failure_reason or ""
    assert nothing.endswith(":create_nothing returned NoneType, not an agent")


def test_payloads_are_json_and_isolated(tmp_path: Path) -> None:
    payloads = payloads_for(config(tmp_path, [code_generator(), structured_generator()]), "r")
    dirs = {p.task_dir for p in payloads}
    assert len(dirs) == 4 and all(d.startswith(str(tmp_path / "tasks")) for d in dirs)
    clone = TaskPayload.model_validate(json.loads(payloads[1].model_dump_json()))
    assert clone == payloads[1] and clone.generator.options["sandbox_model"] == "echo"


def test_generator_spec_names() -> None:
    assert generator_spec("structured").name == "structured"
    assert generator_spec("baseline").ref.endswith(":create_baseline_workflow_adk_generator")
    assert generator_spec("pkg.mod:factory").name == "factory"
    with pytest.raises(ValueError, match="Unknown generator 'fancy'"):
        generator_spec("fancy")


async def test_duplicate_generator_names_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="generator names must be unique"):
        await run_benchmark(config(tmp_path, [code_generator(), code_generator()]))


def test_missing_ray_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_ray(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(
        ImportError, match=r"The Ray backend needs ray: pip install 'pyadk\[bench-ray\]'"
    ):
        RayBackend(1)
