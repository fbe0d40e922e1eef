"""App and Runner(app=...): validation, which agent and plugins run, conflicting args."""

from __future__ import annotations

import pytest

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.sequential_agent import SequentialAgent
from pyadk.apps import App, EventsCompactionConfig, LlmEventSummarizer, ResumabilityConfig
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.runners import InMemoryRunner, Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import ScriptedModel


def _agent(*replies: str) -> LlmAgent:
    return LlmAgent(name="helper", model=ScriptedModel(list(replies)))


class CountingPlugin(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="counting")
        self.runs = 0

    async def before_run_callback(self, *, invocation_context: object) -> None:
        self.runs += 1


async def test_in_memory_runner_runs_the_apps_agent_with_its_plugins() -> None:
    plugin = CountingPlugin()
    app = App(name="my_app", root_agent=_agent("hello!"), plugins=[plugin])
    runner = InMemoryRunner(app=app)
    assert runner.app is app and runner.app_name == "my_app" and runner.agent is app.root_agent
    session = await runner.session_service.create_session(app_name="my_app", user_id="u")
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message=types.UserContent("hi")
        )
    ]
    assert [e.text for e in events] == ["hello!"]
    assert plugin.runs == 1


def test_runner_takes_the_app_name_override() -> None:
    app = App(name="my_app", root_agent=_agent())
    runner = Runner(app=app, app_name="other", session_service=InMemorySessionService())
    assert runner.app_name == "other"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"agent": "AGENT"}, "both app='my_app' and agent='helper'"),
        ({"plugins": []}, "give the plugins to the App"),
    ],
)
def test_runner_refuses_an_app_with_agent_or_plugins(kwargs: dict, message: str) -> None:
    agent = _agent()
    app = App(name="my_app", root_agent=agent)
    kwargs = {k: agent if v == "AGENT" else v for k, v in kwargs.items()}
    with pytest.raises(ValueError, match=message):
        Runner(app=app, session_service=InMemorySessionService(), **kwargs)
    with pytest.raises(ValueError, match=message):
        InMemoryRunner(app=app, **kwargs)


def test_runner_needs_an_app_or_an_agent_with_app_name() -> None:
    with pytest.raises(ValueError, match="needs an app or an agent"):
        Runner(session_service=InMemorySessionService())
    with pytest.raises(ValueError, match="needs app_name"):
        Runner(agent=_agent(), session_service=InMemorySessionService())
    # The agent-and-name form is wrapped in an App on first use, as in google-adk;
    # InMemoryRunner still names itself.
    agent = _agent()
    runner = Runner(app_name="a", agent=agent, session_service=InMemorySessionService())
    assert runner.app.name == "a" and runner.app.root_agent is agent and runner.app.plugins == []
    assert runner.app is runner.app
    assert InMemoryRunner(_agent()).app_name == "InMemoryRunner"


@pytest.mark.parametrize("name", ["1app", "my app", "app.v2", "", "user"])
def test_app_names_are_validated_like_google_adk(name: str) -> None:
    with pytest.raises(ValueError, match="app name"):
        App(name=name, root_agent=_agent())


def test_app_needs_a_root_agent_and_refuses_unknown_fields() -> None:
    with pytest.raises(ValueError, match="root_agent must be provided"):
        App(name="my_app")
    with pytest.raises(ValueError, match="root_agent"):
        App(name="my_app", root_agent={"name": "not an agent"})
    with pytest.raises(ValueError, match="extra"):
        App(name="my_app", root_agent=_agent(), agents=[])


def test_app_keeps_context_cache_and_resumability_configs() -> None:
    cache = object()
    app = App(
        name="my_app",
        root_agent=_agent(),
        context_cache_config=cache,
        resumability_config=ResumabilityConfig(is_resumable=True),
    )
    assert app.context_cache_config is cache
    assert app.resumability_config is not None and app.resumability_config.is_resumable


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs a trigger"),
        ({"compaction_interval": 2}, "compaction_interval and overlap_size"),
        ({"token_threshold": 100}, "token_threshold and event_retention_size"),
        ({"compaction_interval": 0, "overlap_size": 0}, "greater than 0"),
        ({"token_threshold": 10, "event_retention_size": -1}, "greater than or equal to 0"),
    ],
)
def test_compaction_config_needs_complete_triggers(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EventsCompactionConfig(**kwargs)


def test_compaction_without_summarizer_needs_an_llm_root_agent() -> None:
    workflow: BaseAgent = SequentialAgent(name="steps", sub_agents=[_agent()])
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0)
    with pytest.raises(ValueError, match="'steps' is not an LlmAgent"):
        App(name="my_app", root_agent=workflow, events_compaction_config=config)
    summarizer = LlmEventSummarizer(llm=ScriptedModel(["summary"]))
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0, summarizer=summarizer)
    assert App(name="my_app", root_agent=workflow, events_compaction_config=config)
