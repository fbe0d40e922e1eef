"""get_module_help and the module index used by the index-based selector."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import pyadk
from pyadk.contrib.structured_workflow.index import INDEX_PATH, ModuleIndex, load_index
from pyadk.contrib.structured_workflow.module_help import module_help
from pyadk.contrib.structured_workflow.tools import get_module_help


def test_module_help_shows_fields_with_their_docs_and_signatures() -> None:
    text = module_help("pyadk.agents.llm_agent", max_chars=20_000)
    assert text.startswith("# module pyadk.agents.llm_agent\n")
    assert "class LlmAgent(BaseAgent):" in text
    assert "    output_key: str | None = None  # State key that receives" in text
    assert "    # fields from BaseAgent: name, description, sub_agents" in text
    # Framework internals are left out: they only cost prompt tokens.
    assert "canonical_tools" not in text and "def run_async" not in text


def test_module_help_functions_and_aliases() -> None:
    text = module_help("pyadk.tools", max_chars=20_000)
    assert "def exit_loop(tool_context: ToolContext) -> dict[str, str]: ...  # Exits the loop." in (
        text
    )
    assert "    def __init__(self, *, name: str, description: str = '', " in text
    agents = module_help("pyadk.agents", max_chars=20_000)
    assert "LlmAgent = Agent" in agents  # one class under two names is shown once


def test_module_help_is_valid_python_for_every_pyadk_module() -> None:
    # Small models copy from the docs: a stub that parses keeps their copies parseable.
    names = [
        m.name
        for m in pkgutil.walk_packages(pyadk.__path__, "pyadk.")
        if ".contrib" not in m.name and ".local" not in m.name and "._" not in m.name
    ]
    assert len(names) > 50
    for name in names:
        try:
            text = module_help(name, max_chars=1_000_000)
        except ImportError:  # optional dependencies
            continue
        ast.parse(text, filename=name)


def test_module_help_respects_max_chars() -> None:
    text = module_help("pyadk.agents", max_chars=500)
    assert len(text) <= 500 and text.endswith("\n# [... truncated]")
    ast.parse(text)  # cut at a line boundary


def test_get_module_help_tool_results() -> None:
    ok = get_module_help("pyadk.tools.exit_loop_tool")
    assert ok["status"] == "ok" and "def exit_loop" in ok["help"]
    missing = get_module_help("pyadk.no_such_module")
    # "not_found", not "error": a miss must not mark the selector agent as failed.
    assert missing["status"] == "not_found"
    assert "pyadk.no_such_module" in missing["message"]


def test_packaged_index_modules_all_import_and_have_summaries() -> None:
    index = load_index()
    assert len(index.modules) >= 15
    for entry in index.modules:
        importlib.import_module(entry.name)
        assert len(entry.summary) > 20, entry.name
    assert set(index.defaults) <= set(index.names())
    assert INDEX_PATH.name == "adk_index.yaml"


def test_index_text_lists_one_module_per_line() -> None:
    index = load_index()
    lines = index.as_text().splitlines()
    assert len(lines) == len(index.modules)
    assert lines[0].startswith("- pyadk.agents.llm_agent: LlmAgent")


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        ("pyadk.agents.loop_agent", "pyadk.agents.loop_agent"),
        ("`pyadk/agents/loop_agent.py`", "pyadk.agents.loop_agent"),
        ("pyadk.agents.LoopAgent", "pyadk.agents.loop_agent"),  # a class name
        ("pyadk.tools.exit_loop_tool.exit_loop", "pyadk.tools.exit_loop_tool"),
        ("loop_agent", "pyadk.agents.loop_agent"),
        ("pyadk.agents", "pyadk.agents.llm_agent"),  # a package: its first indexed module
        ("numpy", None),
    ],
)
def test_index_matches_names_leniently(requested: str, expected: str | None) -> None:
    assert load_index().match(requested) == expected


def test_index_select_dedupes_and_limits() -> None:
    index = load_index()
    chosen = index.select(
        ["pyadk.agents.LoopAgent", "loop_agent", "nonsense", "pyadk.tools", "pyadk.events"], 2
    )
    assert chosen == ["pyadk.agents.loop_agent", "pyadk.tools.function_tool"]


def test_load_index_from_another_file(tmp_path: Path) -> None:
    path = tmp_path / "index.yaml"
    path.write_text("modules:\n  - name: json\n    summary: JSON encoding.\n", encoding="utf-8")
    index = load_index(path)
    assert index == ModuleIndex(modules=[{"name": "json", "summary": "JSON encoding."}])
