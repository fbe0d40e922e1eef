"""The a2a extra: lazily imported, and a clear error when it is missing."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest


def test_importing_pyadk_agents_does_not_load_a2a_sdk() -> None:
    code = (
        "import sys, pyadk.agents; from pyadk.agents import LlmAgent; "
        "assert not any(m == 'a2a' or m.startswith('a2a.') for m in sys.modules), 'a2a loaded'; "
        "from pyadk.agents import RemoteA2aAgent; "
        "assert RemoteA2aAgent.__module__ == 'pyadk.agents.remote_a2a_agent'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyadk.a2a import _sdk

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "a2a" else real(name, *a)
    )
    with pytest.raises(ImportError, match=r"pyadk\[a2a\]"):
        _sdk.require_a2a_sdk()


def test_public_names_match_google_adk_modules() -> None:
    from pyadk.a2a import A2aAgentExecutor, AgentCardBuilder, to_a2a
    from pyadk.agents.remote_a2a_agent import (
        AGENT_CARD_WELL_KNOWN_PATH,
        A2AClientError,
        AgentCardResolutionError,
        RemoteA2aAgent,
    )

    assert AGENT_CARD_WELL_KNOWN_PATH == "/.well-known/agent-card.json"
    assert callable(to_a2a) and A2aAgentExecutor and AgentCardBuilder
    assert issubclass(A2AClientError, Exception) and issubclass(AgentCardResolutionError, Exception)
    assert RemoteA2aAgent.__name__ == "RemoteA2aAgent"
