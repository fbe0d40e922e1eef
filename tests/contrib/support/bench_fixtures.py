"""A small task set and config builders for the bench tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workflow_fakes import MODEL_REF, ref

from pyadk.contrib.bench.records import GeneratorSpec
from pyadk.contrib.bench.runner import BenchConfig
from pyadk.contrib.bench.tasks import load_task_set, parse_task_set
from pyadk.contrib.bench.worker import generator_spec

HELLO_COMMAND = (
    '"$PYTHON" -c "import runpy, sys; a = runpy.run_path(sys.argv[1])[\'root_agent\']; '
    'assert a.name == \'greeter\', a.name" "$SOLUTION_FILE"'
)


def small_task_set() -> Any:
    """hello (a command check) and add_tool (a checker) with short requests."""
    starter = {t.id: t for t in load_task_set("starter").tasks}
    return parse_task_set(
        {
            "name": "small",
            "tasks": [
                {
                    "id": "hello",
                    "request": "Write an LlmAgent named greeter.",
                    "verification": {"command": HELLO_COMMAND},
                },
                starter["add_tool"].model_dump(),
            ],
        }
    )


def code_generator() -> GeneratorSpec:
    return generator_spec(f"code={ref('create_code_generator')}")


def structured_generator() -> GeneratorSpec:
    return generator_spec("structured", {"sandbox_model": "echo", "max_iterations": 2})


def config(out: Path, generators: list[GeneratorSpec], **changes: Any) -> BenchConfig:
    settings: dict[str, Any] = {
        "task_set": small_task_set(),
        "generators": generators,
        "out_dir": out,
        "model": MODEL_REF,
        "temperature": 0.0,
        "seed": 42,
        "timeout": 120.0,
        "verify_timeout": 60.0,
        **changes,
    }
    return BenchConfig(**settings)
