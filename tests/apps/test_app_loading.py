"""Agent directories that export an ``app = App(...)``: the server's loader and `pyadk run`."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

from pyadk.apps import App
from pyadk.cli.agent_loading import load_agent, load_app
from pyadk.server.agent_loader import AgentLoader

APP_PY = """
from pyadk.agents import LlmAgent
from pyadk.apps import App, EventsCompactionConfig

app = App(
    name="support",
    root_agent=LlmAgent(name="helper", model="scripted"),
    events_compaction_config=EventsCompactionConfig(compaction_interval=3, overlap_size=1),
)
"""

OTHER_APP_PY = """
from pyadk.agents import LlmAgent

app = object()  # e.g. a web framework's app: not a pyadk App
root_agent = LlmAgent(name="plain")
"""


def _write(directory: Path, source: str) -> str:
    name = f"app_{uuid.uuid4().hex[:8]}"  # apps are imported by name: one per test
    (directory / name).mkdir(parents=True)
    (directory / name / "agent.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return name


def test_the_loader_takes_the_root_agent_and_the_app_of_an_exported_app(tmp_path: Path) -> None:
    name = _write(tmp_path, APP_PY)
    loader = AgentLoader(tmp_path)
    agent = loader.load_agent(name)
    app = loader.load_app(name)
    assert isinstance(app, App) and agent is app.root_agent and agent.name == "helper"
    assert app.events_compaction_config is not None
    loader.invalidate(name)
    assert loader.load_app(name) is not app  # imported again


def test_an_app_attribute_that_is_not_an_app_is_ignored(tmp_path: Path) -> None:
    name = _write(tmp_path, OTHER_APP_PY)
    loader = AgentLoader(tmp_path)
    assert loader.load_agent(name).name == "plain"
    assert loader.load_app(name) is None


def test_pyadk_run_loads_an_exported_app(tmp_path: Path) -> None:
    name = _write(tmp_path, APP_PY)
    app_name, agent, app = load_app(tmp_path / name)
    assert app_name == name and app is not None and agent is app.root_agent
    assert load_agent(tmp_path / name)[1].name == "helper"


RECORDING_APP_PY = """
from pyadk.agents import LlmAgent
from pyadk.apps import App
from pyadk.plugins import BasePlugin
from pyadk.testing import ScriptedModel

RUNS = []


class Recorder(BasePlugin):
    async def before_run_callback(self, *, invocation_context):
        RUNS.append(invocation_context.invocation_id)


app = App(
    name="recorded",
    root_agent=LlmAgent(name="helper", model=ScriptedModel(["hi"])),
    plugins=[Recorder(name="recorder")],
)
"""


async def test_the_servers_runner_applies_an_exported_apps_plugins(tmp_path: Path) -> None:
    import sys

    from pyadk import types
    from pyadk.artifacts import InMemoryArtifactService
    from pyadk.memory import InMemoryMemoryService
    from pyadk.server.context import ServerContext, ServerSettings
    from pyadk.sessions import InMemorySessionService

    name = _write(tmp_path, RECORDING_APP_PY)
    sessions = InMemorySessionService()
    ctx = ServerContext(
        loader=AgentLoader(tmp_path),
        agents={},
        session_service=sessions,
        artifact_service=InMemoryArtifactService(),
        memory_service=InMemoryMemoryService(),
        plugins=[],
        settings=ServerSettings(),
    )
    runner = ctx.runner(name)
    assert runner.app_name == name and runner.app is not None
    assert runner.agent.name == "helper"
    await sessions.create_session(app_name=name, user_id="u", session_id="s")
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id="s", new_message=types.UserContent("hello")
        )
    ]
    assert [e.text for e in events] == ["hi"]
    module = sys.modules[f"{name}.agent"]
    assert [events[0].invocation_id] == module.RUNS  # the app's own plugin ran
    # the server's own plugins come first (turn_start for the streaming routes)
    names = [p.name for p in runner.plugin_manager.plugins]
    assert names[-1] == "recorder" and len(names) == 2
