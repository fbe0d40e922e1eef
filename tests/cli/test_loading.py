"""`pyadk run` agent discovery: root_agent lookup, .env loading, clear load errors."""

from __future__ import annotations

import json
from pathlib import Path

ECHO_ENV = """
import os

from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel

GREETING = os.environ["CLI_TEST_GREETING"]
root_agent = LlmAgent(name="greeter", model=FunctionModel(lambda request: GREETING))
"""


def _replay(tmp_path: Path) -> str:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"queries": ["hi"]}))
    return str(path)


def test_env_file_is_loaded_before_the_agent_is_imported(run_cli, write_agent, tmp_path):
    folder = write_agent("greeter", ECHO_ENV)
    (folder / ".env").write_text("CLI_TEST_GREETING=hello from .env\n")
    result = run_cli("run", "greeter", "--replay", _replay(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "[greeter]: hello from .env" in result.stdout.splitlines()


def test_environment_variables_win_over_the_env_file(run_cli, write_agent, tmp_path):
    folder = write_agent("greeter", ECHO_ENV)
    (folder / ".env").write_text("CLI_TEST_GREETING=from file\n")
    result = run_cli(
        "run", "greeter", "--replay", _replay(tmp_path), env={"CLI_TEST_GREETING": "from env"}
    )
    assert "[greeter]: from env" in result.stdout.splitlines()


def test_root_agent_in_init_py_is_found(run_cli, tmp_path):
    folder = tmp_path / "solo"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        "from pyadk.agents import LlmAgent\n"
        "from pyadk.testing import FunctionModel\n"
        "root_agent = LlmAgent(name='solo', model=FunctionModel(lambda r: 'from init'))\n"
    )
    result = run_cli("run", str(folder), "--replay", _replay(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "[solo]: from init" in result.stdout.splitlines()


def test_agent_py_without_init_py_is_found(run_cli, tmp_path):
    folder = tmp_path / "bare"
    folder.mkdir()
    (folder / "agent.py").write_text(
        "from pyadk.agents import LlmAgent\n"
        "from pyadk.testing import FunctionModel\n"
        "root_agent = LlmAgent(name='bare', model=FunctionModel(lambda r: 'from agent.py'))\n"
    )
    result = run_cli("run", "bare", "--replay", _replay(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "[bare]: from agent.py" in result.stdout.splitlines()


def test_missing_directory_is_named(run_cli, tmp_path):
    result = run_cli("run", "nowhere", input="hi\n")
    assert result.returncode == 1
    assert f"Agent directory not found: {tmp_path / 'nowhere'}" in result.stderr
    assert "Traceback" not in result.stderr


def test_directory_name_that_is_not_importable_is_refused(run_cli, tmp_path):
    folder = tmp_path / "my-app"
    folder.mkdir()
    (folder / "agent.py").write_text("root_agent = None\n")
    result = run_cli("run", "my-app")
    assert result.returncode == 1
    assert "is not an agent app: the name is not a Python identifier" in result.stderr


def test_directory_without_agent_files_is_named(run_cli, tmp_path):
    (tmp_path / "empty").mkdir()
    result = run_cli("run", "empty")
    assert result.returncode == 1
    assert f"{tmp_path / 'empty'} is not an agent app: no agent.py or __init__.py" in (
        result.stderr
    )


def test_error_raised_by_the_agent_file_names_file_and_line(run_cli, write_agent):
    folder = write_agent("broken", "import os\n\nroot_agent = undefined_name\n")
    result = run_cli("run", "broken", input="hi\n")
    assert result.returncode == 1
    assert f"{folder / 'agent.py'}:3" in result.stderr
    assert "NameError: name 'undefined_name' is not defined" in result.stderr
    assert "Traceback" not in result.stderr


def test_syntax_error_in_the_agent_file_names_the_file(run_cli, write_agent):
    folder = write_agent("broken", "def f(:\n    pass\n")
    result = run_cli("run", "broken")
    assert result.returncode == 1
    assert f"{folder / 'agent.py'}:1" in result.stderr and "SyntaxError" in result.stderr


def test_error_in_a_helper_module_of_the_app_names_that_module(run_cli, write_agent):
    folder = write_agent("app", "from . import helpers\nroot_agent = helpers.AGENT\n")
    (folder / "helpers.py").write_text("AGENT = 1 / 0\n")
    result = run_cli("run", "app")
    assert result.returncode == 1
    assert f"{folder / 'helpers.py'}:1: ZeroDivisionError" in result.stderr


def test_module_without_root_agent_is_reported(run_cli, write_agent):
    folder = write_agent("noroot", "agent = None\n")
    result = run_cli("run", "noroot")
    assert result.returncode == 1
    assert "No root_agent in app 'noroot'" in result.stderr
    assert str(folder / "agent.py") in result.stderr


def test_root_agent_that_is_not_an_agent_is_reported(run_cli, write_agent):
    write_agent("wrong", "root_agent = 'not an agent'\n")
    result = run_cli("run", "wrong")
    assert result.returncode == 1
    assert "root_agent of app 'wrong' must be an agent (BaseAgent" in result.stderr
    assert "got str" in result.stderr


def test_directory_named_like_an_installed_module_is_refused(run_cli, tmp_path):
    folder = tmp_path / "json"
    folder.mkdir()
    (folder / "agent.py").write_text("root_agent = None\n")
    result = run_cli("run", "json")
    assert result.returncode == 1
    assert "App 'json' clashes with the module 'json'" in result.stderr
