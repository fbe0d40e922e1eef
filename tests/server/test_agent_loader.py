"""AgentLoader: ADK's agent discovery (apps, root_agent, .env) and its error messages."""

from __future__ import annotations

import os
import textwrap
import uuid
from pathlib import Path

import pytest
from server_support import AGENTS_DIR

from pyadk.agents import LlmAgent
from pyadk.server.agent_loader import AgentLoader, AgentLoadError, AppNotFoundError

AGENT_PY = """
from pyadk.agents import LlmAgent
root_agent = LlmAgent(name={name!r}, description={description!r})
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def unique(prefix: str) -> str:
    """An app name no other test imported (apps are imported by name, as in ADK)."""
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def test_fixture_dir_lists_only_agent_directories() -> None:
    loader = AgentLoader(AGENTS_DIR)

    assert loader.list_apps() == ["broken", "chat", "failing", "team"]
    # a data directory is reported, dot-directories are not even considered
    assert loader.skipped() == {"notes": "no agent.py or __init__.py"}


def test_skipped_explains_a_directory_name_that_cannot_be_imported(tmp_path: Path) -> None:
    write(tmp_path / "my-app" / "agent.py", AGENT_PY.format(name="a", description=""))
    (tmp_path / "__pycache__").mkdir()

    loader = AgentLoader(tmp_path)

    assert loader.list_apps() == []
    assert loader.skipped() == {
        "my-app": "the name is not a Python identifier (use letters, digits, _)"
    }


def test_root_agent_from_agent_py_and_from_init_py(tmp_path: Path) -> None:
    in_agent, in_init = unique("in_agent"), unique("in_init")
    write(tmp_path / in_agent / "agent.py", AGENT_PY.format(name="a1", description="from agent"))
    write(tmp_path / in_init / "__init__.py", AGENT_PY.format(name="a2", description="from init"))

    loader = AgentLoader(tmp_path)

    assert loader.list_apps() == sorted([in_agent, in_init])
    assert loader.load_agent(in_agent).description == "from agent"
    assert loader.load_agent(in_init).description == "from init"


def test_adk_package_layout_with_relative_import() -> None:
    agent = AgentLoader(AGENTS_DIR).load_agent("team")

    assert isinstance(agent, LlmAgent)
    assert agent.name == "orchestrator"
    assert [a.name for a in agent.sub_agents] == ["code_reviewer"]


def test_agents_are_cached_per_app_and_invalidate_reloads_the_file(tmp_path: Path) -> None:
    name = unique("editable")
    agent_py = write(tmp_path / name / "agent.py", AGENT_PY.format(name="a", description="v1"))
    loader = AgentLoader(tmp_path)
    first = loader.load_agent(name)

    agent_py.write_text(AGENT_PY.format(name="a", description="v2"), encoding="utf-8")
    assert loader.load_agent(name) is first  # cached: the file is not read again

    loader.invalidate(name)
    assert loader.load_agent(name).description == "v2"


def test_same_app_name_in_two_agents_dirs_loads_each_own_agent(tmp_path: Path) -> None:
    name = unique("twin")
    write(tmp_path / "one" / name / "agent.py", AGENT_PY.format(name="a", description="one"))
    write(tmp_path / "two" / name / "agent.py", AGENT_PY.format(name="a", description="two"))

    assert AgentLoader(tmp_path / "one").load_agent(name).description == "one"
    assert AgentLoader(tmp_path / "two").load_agent(name).description == "two"


def test_env_file_is_loaded_before_the_import_and_does_not_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = unique("envapp")
    key, kept = f"PYADK_TEST_{name.upper()}", f"PYADK_KEPT_{name.upper()}"
    monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv(kept, "from the environment")
    write(tmp_path / name / ".env", f"{key}='from dotenv'\n{kept}=from the file\n")
    write(
        tmp_path / name / "agent.py",
        f"""
        import os
        from pyadk.agents import LlmAgent
        root_agent = LlmAgent(name="a", description=os.environ[{key!r}])
        """,
    )

    agent = AgentLoader(tmp_path).load_agent(name)
    monkeypatch.delenv(key)  # undo what the loader set, after reading it

    assert agent.description == "from dotenv"
    assert os.environ[kept] == "from the environment"


def test_import_error_names_the_file_and_line() -> None:
    loader = AgentLoader(AGENTS_DIR)

    with pytest.raises(AgentLoadError) as caught:
        loader.load_agent("broken")

    message = str(caught.value)
    assert str(AGENTS_DIR / "broken" / "agent.py") + ":3" in message
    assert "ModuleNotFoundError" in message and "pyadk_no_such_module" in message
    assert caught.value.app_name == "broken"
    assert caught.value.file == AGENTS_DIR / "broken" / "agent.py"


def test_syntax_error_names_the_file_and_a_fixed_file_loads(tmp_path: Path) -> None:
    name = unique("syntax")
    agent_py = write(tmp_path / name / "agent.py", "root_agent = (\n")
    loader = AgentLoader(tmp_path)

    with pytest.raises(AgentLoadError, match=r"agent\.py:1: SyntaxError"):
        loader.load_agent(name)

    agent_py.write_text(AGENT_PY.format(name="fixed", description=""), encoding="utf-8")
    assert loader.load_agent(name).name == "fixed"  # the failure was not cached


def test_missing_root_agent_says_where_to_define_it(tmp_path: Path) -> None:
    name = unique("noroot")
    write(tmp_path / name / "agent.py", "agent = None\n")

    with pytest.raises(AgentLoadError, match="No root_agent in app") as caught:
        AgentLoader(tmp_path).load_agent(name)
    assert str(tmp_path / name / "agent.py") in str(caught.value)


def test_root_agent_that_is_not_an_agent_is_rejected(tmp_path: Path) -> None:
    name = unique("notagent")
    write(tmp_path / name / "agent.py", "root_agent = 'hello'\n")

    with pytest.raises(AgentLoadError, match=r"must be an agent .* got str"):
        AgentLoader(tmp_path).load_agent(name)


def test_app_named_like_an_installed_module_is_an_error_not_that_module(tmp_path: Path) -> None:
    write(tmp_path / "json" / "agent.py", AGENT_PY.format(name="a", description=""))

    with pytest.raises(AgentLoadError, match="clashes with the module 'json'"):
        AgentLoader(tmp_path).load_agent("json")


def test_unknown_app_lists_the_available_ones() -> None:
    loader = AgentLoader(AGENTS_DIR)

    with pytest.raises(AppNotFoundError, match="Available apps: broken, chat, failing, team"):
        loader.load_agent("nope")
    with pytest.raises(AppNotFoundError):
        loader.load_agent("../team")  # only listed names are imported
    with pytest.raises(AppNotFoundError):
        loader.load_agent("notes")


def test_missing_agents_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Agents directory not found"):
        AgentLoader(tmp_path / "missing")
