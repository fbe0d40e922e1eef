"""Fixtures for the CLI tests: run `pyadk` in a subprocess, write agent folders."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

CLI_TIMEOUT = 120  # seconds; a guard against a hung subprocess, not a timing assertion

RunCli = Callable[..., subprocess.CompletedProcess[str]]
WriteAgent = Callable[..., Path]


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a `pyadk` subprocess: no colours, no inherited server token."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYADK_")}
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PYTHONUNBUFFERED": "1"})
    # CLI behaviour is tested on the offline demo model, not the embedded LLM.
    env["PYADK_DEFAULT_MODEL"] = "none"
    env.update(extra)
    return env


@pytest.fixture
def make_env() -> Callable[..., dict[str, str]]:
    """:func:`cli_env`, for tests that start `pyadk` themselves."""
    return cli_env


@pytest.fixture
def run_cli(tmp_path: Path) -> RunCli:
    """Runs ``python -m pyadk.cli ARGS`` in ``tmp_path``; returns the completed process."""

    def run(
        *args: str, input: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pyadk.cli", *args],
            cwd=tmp_path,
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            env=cli_env(**(env or {})),
            timeout=CLI_TIMEOUT,
        )

    return run


@pytest.fixture
def write_agent(tmp_path: Path) -> WriteAgent:
    """Writes ``tmp_path/NAME/agent.py`` (dedented) and an ``__init__.py``; returns the dir."""

    def write(name: str, code: str, init: str = "from . import agent\n") -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "__init__.py").write_text(init)
        (folder / "agent.py").write_text(textwrap.dedent(code))
        return folder

    return write
