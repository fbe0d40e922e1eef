"""A2aAgentExecutor options: interceptors and a runner of one's own."""

from __future__ import annotations

from collections.abc import Callable

from a2a.types import TaskStatusUpdateEvent
from a2a_support import Chat, answers, meta

from pyadk.a2a import A2aAgentExecutor, A2aAgentExecutorConfig, ExecuteInterceptor
from pyadk.a2a.converters.event_converter import A2AEvent
from pyadk.a2a.executor.executor_context import ExecutorContext
from pyadk.agents import LlmAgent
from pyadk.agents.remote_a2a_agent import RemoteA2aAgent
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import ScriptedModel, function_call


async def test_interceptors_see_every_update_and_can_drop_or_rewrite(
    serve_a2a: Callable[..., str],
) -> None:
    seen: list[str] = []

    async def hide_tool_traffic(
        ctx: ExecutorContext, update: A2AEvent, event: Event
    ) -> A2AEvent | None:
        seen.append(ctx.app_name)
        calls = event.get_function_calls() or event.get_function_responses()
        return None if calls else update

    async def tag_final(
        ctx: ExecutorContext, closing: TaskStatusUpdateEvent
    ) -> TaskStatusUpdateEvent:
        closing.metadata.update({"served_by": ctx.session_id})
        return closing

    def lookup(key: str) -> str:
        """Looks a key up."""
        return key.upper()

    model = ScriptedModel([function_call("lookup", {"key": "k"}), "K it is"])
    agent = LlmAgent(name="quiet", model=model, tools=[lookup])
    config = A2aAgentExecutorConfig(
        execute_interceptors=[
            ExecuteInterceptor(after_event=hide_tool_traffic, after_agent=tag_final)
        ]
    )
    url = serve_a2a(
        agent, agent_executor_factory=lambda runner: A2aAgentExecutor(runner=runner, config=config)
    )

    events = await Chat(RemoteA2aAgent(name="quiet", agent_card=url)).say("find k")

    assert answers(events) == ["K it is"]
    assert not [e for e in events if e.get_function_calls() or e.get_function_responses()]
    assert set(seen) == {"quiet"} and len(seen) == 3
    closing = next(
        e for e in events if meta(e, "response")["status"]["state"] == "TASK_STATE_COMPLETED"
    )
    assert meta(closing, "response")["metadata"]["served_by"] == meta(closing, "context_id")


async def test_given_runner_keeps_the_remote_sessions(serve_a2a: Callable[..., str]) -> None:
    sessions = InMemorySessionService()
    agent = LlmAgent(name="keeper", model=ScriptedModel(["noted"]))
    runner = Runner(app_name="keeper_app", agent=agent, session_service=sessions)
    url = serve_a2a(agent, runner=runner)

    events = await Chat(RemoteA2aAgent(name="keeper", agent_card=url)).say("remember")

    context_id = meta(events[-1], "context_id")
    stored = await sessions.get_session(
        app_name="keeper_app", user_id=f"A2A_USER_{context_id}", session_id=context_id
    )
    assert stored is not None
    texts = [p.text for e in stored.events if e.content for p in e.content.parts or [] if p.text]
    assert texts == ["remember", "noted"]
