"""Fixtures for the embedded model's tests.

Unit tests use small fake chunk files and a fake runtime. Tests marked ``local_model``
run the real model; it is loaded once per test session (``local_llm``). Without the
``local`` extra they are skipped, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os

import pytest

from pyadk.models.local import LocalLlm, is_available


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "local_model: runs the real embedded model (loaded once per session)"
    )


@pytest.fixture(scope="session")
def local_llm() -> LocalLlm:
    """The embedded model, loaded once for the whole test session."""
    if not is_available():
        message = "the embedded model is not installed: pip install 'pyadk[local]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    llm = LocalLlm()
    llm.load()
    return llm
