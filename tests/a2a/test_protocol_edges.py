"""Protocol edges: a non-streaming remote, a 0.3 client, a stream that stops early."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import AgentCapabilities, Message, Role, Task, TaskState
from a2a_support import Chat, answers, meta

from pyadk import types
from pyadk.a2a import A2aAgentExecutor, AgentCardBuilder
from pyadk.a2a.converters._from_adk import status_update
from pyadk.agents import LlmAgent
from pyadk.agents.remote_a2a_agent import RemoteA2aAgent
from pyadk.runners import Runner
from pyadk.testing import ScriptedModel


async def test_non_streaming_remote_answers_once(serve_a2a: Callable[..., str]) -> None:
    agent = LlmAgent(name="plain", model=ScriptedModel(["one shot"]))
    builder = AgentCardBuilder(
        agent=agent, rpc_url="http://127.0.0.1:0/", capabilities=AgentCapabilities(streaming=False)
    )
    card = await builder.build()
    url = serve_a2a(agent)  # the live server, for its port
    card.supported_interfaces[0].url = url.removesuffix("/.well-known/agent-card.json")

    events = await Chat(RemoteA2aAgent(name="plain", agent_card=card)).say("hi")

    replies = [e for e in events if e.content and e.content.parts]
    assert len(replies) == 1 and answers(replies) == ["one shot"]
    assert meta(replies[0], "response")["status"]["state"] == "TASK_STATE_COMPLETED"
    assert replies[0].actions.skip_summarization


def test_a_0_3_client_is_answered_in_0_3_terms(serve_a2a: Callable[..., str]) -> None:
    url = serve_a2a(LlmAgent(name="old", model=ScriptedModel(["hello, old friend"])))
    base = url.removesuffix("/.well-known/agent-card.json")
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "messageId": "m1",
                "role": "user",
                "parts": [{"kind": "text", "text": "hi"}],
            }
        },
    }

    task = httpx.post(base + "/", json=request).json()["result"]

    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "hello, old friend"}]


class _StopsEarly(A2aAgentExecutor):
    """Reports the work but never closes the task."""

    async def _publish_result(self, *args: Any, **kwargs: Any) -> None:
        return None


async def test_stream_ending_before_a_final_state_is_an_error(
    serve_a2a: Callable[..., str],
) -> None:
    agent = LlmAgent(name="quitter", model=ScriptedModel(["half an answer"]))

    def factory(runner: Runner) -> A2aAgentExecutor:
        return _StopsEarly(runner=runner)

    url = serve_a2a(agent, agent_executor_factory=factory)

    events = await Chat(RemoteA2aAgent(name="quitter", agent_card=url)).say("hi")

    errors = [e for e in events if e.error_code]
    assert [e.error_code for e in errors] == ["A2A_STREAM_INCOMPLETE"]
    assert "reached a terminal state" in (errors[0].error_message or "")


class _AsksForTheCity(AgentExecutor):
    """A remote that is not pyadk: asks for a city in words, then answers."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        if context.current_task is None:
            task = Task(id=context.task_id or "", context_id=context.context_id or "")
            task.status.state = TaskState.TASK_STATE_SUBMITTED
            task.history.append(context.message)
            await event_queue.enqueue_event(task)
            question = Message(message_id="q", role=Role.ROLE_AGENT)
            question.parts.add(text="Which city?")
            await event_queue.enqueue_event(
                status_update(
                    context.task_id,
                    context.context_id,
                    TaskState.TASK_STATE_INPUT_REQUIRED,
                    question,
                )
            )
            return
        city = context.message.parts[0].text
        answer = Message(message_id="a", role=Role.ROLE_AGENT)
        answer.parts.add(text=f"Sunny in {city}")
        await event_queue.enqueue_event(
            status_update(
                context.task_id, context.context_id, TaskState.TASK_STATE_COMPLETED, answer
            )
        )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


async def test_remote_asking_in_words_is_answered_like_a_long_running_call(
    serve_a2a: Callable[..., str],
) -> None:
    agent = LlmAgent(name="asker", model=ScriptedModel([]))
    url = serve_a2a(agent, agent_executor_factory=lambda runner: _AsksForTheCity())
    chat = Chat(RemoteA2aAgent(name="asker", agent_card=url))

    pause = (await chat.say("weather?"))[-1]
    assert pause.content is not None and pause.long_running_tool_ids
    call = pause.content.parts[0].function_call
    assert call is not None and call.id in pause.long_running_tool_ids
    assert (call.name, call.args) == (
        "mock_function_call_for_required_user_input",
        {"input_required": "Which city?"},
    )

    reply = types.Part.from_function_response(name=call.name, response={"result": "Lyon"})
    assert reply.function_response is not None
    reply.function_response.id = call.id
    events = await chat.send(types.Content(role="user", parts=[reply]))

    assert answers(events) == ["Sunny in Lyon"]
    sent = meta(events[-1], "request")
    assert sent["taskId"] == meta(pause, "task_id")
    assert sent["parts"] == [{"text": "Lyon", "metadata": {"is_user_input": True}}]


class _RepliesWithMessages(AgentExecutor):
    """A task-less remote: answers each request with one message, counting them."""

    def __init__(self) -> None:
        self.contexts: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.contexts.append(context.context_id or "")
        reply = Message(message_id=f"r{len(self.contexts)}", role=Role.ROLE_AGENT)
        reply.context_id = context.context_id or ""
        reply.parts.add(text=f"reply {len(self.contexts)}")
        await event_queue.enqueue_event(reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


async def test_task_less_remote_messages_are_answers_and_keep_the_context(
    serve_a2a: Callable[..., str],
) -> None:
    executor = _RepliesWithMessages()
    url = serve_a2a(
        LlmAgent(name="chatty", model=ScriptedModel([])),
        agent_executor_factory=lambda runner: executor,
    )
    chat = Chat(RemoteA2aAgent(name="chatty", agent_card=url))

    first = await chat.say("one")
    second = await chat.say("two")

    assert answers(first) == ["reply 1"] and answers(second) == ["reply 2"]
    assert executor.contexts[0] and executor.contexts == [executor.contexts[0]] * 2
    assert meta(second[0], "context_id") == executor.contexts[0]
    assert meta(second[0], "task_id") is None
