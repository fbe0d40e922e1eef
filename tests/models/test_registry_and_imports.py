"""Model names resolve to adapters lazily; a missing SDK names the extra to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import pyadk.models
from pyadk.agents import LlmAgent
from pyadk.models import LLMRegistry
from pyadk.models.anthropic_llm import Claude
from pyadk.models.gemini import Gemini
from pyadk.models.lite_llm import LiteLlm
from pyadk.models.openai_chat import OpenAIChat


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_importing_pyadk_models_loads_no_provider_sdk() -> None:
    result = _run(
        """
        import sys
        import pyadk.models
        from pyadk.models import LLMRegistry
        LLMRegistry.resolve("gemini-2.5-flash")  # resolving one loads only its SDK
        loaded = sorted(m for m in ("openai", "anthropic", "litellm") if m in sys.modules)
        print(loaded, "google.genai" in sys.modules)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] True"


@pytest.mark.parametrize(
    ("name", "cls", "sent_name"),
    [
        ("gemini-2.5-flash", Gemini, "gemini-2.5-flash"),
        ("openai/gpt-4o-mini", OpenAIChat, "gpt-4o-mini"),
        ("claude-sonnet-4-5", Claude, "claude-sonnet-4-5"),
        ("anthropic/claude-3-5-haiku-latest", Claude, "claude-3-5-haiku-latest"),
        ("litellm/ollama_chat/llama3.2", LiteLlm, "ollama_chat/llama3.2"),
    ],
)
def test_model_names_resolve_to_adapters(name: str, cls: type, sent_name: str) -> None:
    llm = LLMRegistry.new_llm(name)
    assert type(llm) is cls
    assert llm.model == name
    assert getattr(llm, "model_name", llm.model) == sent_name


def test_an_agent_runs_on_a_model_named_by_string() -> None:
    agent = LlmAgent(name="a", model="openai/gpt-4o-mini")
    assert isinstance(agent.canonical_model, OpenAIChat)


def test_lazy_patterns_match_each_adapters_supported_models() -> None:
    for name, module in pyadk.models._ADAPTERS.items():
        cls = getattr(pyadk.models, name)
        assert cls.__module__ == module
        assert cls.supported_models() == pyadk.models._ADAPTER_PATTERNS[name]


def test_unknown_name_still_lists_the_registered_patterns() -> None:
    with pytest.raises(ValueError, match=r"Model 'gpt-4o' not found.*openai/\.\+"):
        LLMRegistry.resolve("gpt-4o")


_BLOCK_SDK = """
import sys

class Block:
    def find_spec(self, name, path=None, target=None):
        if name == {sdk!r} or name.startswith({sdk!r} + "."):
            raise ImportError("No module named " + repr(name))
        return None

sys.meta_path.insert(0, Block())
"""


@pytest.mark.parametrize(
    ("adapter", "model_name", "sdk", "extra"),
    [
        ("OpenAIChat", "openai/gpt-4o", "openai", "openai"),
        ("Claude", "claude-sonnet-4-5", "anthropic", "anthropic"),
        ("Gemini", "gemini-2.5-flash", "google.genai", "gemini"),
        ("LiteLlm", "litellm/openai/gpt-4o", "litellm", "litellm"),
    ],
)
def test_a_missing_sdk_names_the_extra_to_install(
    adapter: str, model_name: str, sdk: str, extra: str
) -> None:
    result = _run(
        _BLOCK_SDK.format(sdk=sdk)
        + textwrap.dedent(
            f"""
            import pyadk.models
            for attempt in (lambda: pyadk.models.{adapter},
                            lambda: pyadk.models.LLMRegistry.new_llm({model_name!r})):
                try:
                    attempt()
                except ImportError as exc:
                    print(exc)
            """
        )
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert line.startswith(f"{adapter} needs the ")
        assert f'pip install "pyadk[{extra}]"' in line


def test_the_conformance_kit_is_exported_from_pyadk_testing() -> None:
    # Importing pyadk.testing needs no pytest; the suite is imported when asked for.
    result = _run(
        """
        import sys
        import pyadk.testing as kit
        print("pytest" in sys.modules, "pyadk.testing.model_conformance" in sys.modules)
        from pyadk.testing import fixture_server, model_conformance
        names = ("ModelConformance", "OpenAIWire", "AnthropicWire", "GeminiWire", "Call", "Wire")
        print(all(getattr(kit, n) is getattr(model_conformance, n) for n in names))
        print(kit.FixtureServer is fixture_server.FixtureServer, sorted(kit.__all__) == kit.__all__)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "True", "True", "True"]
