"""Protocol edges: a non-streaming remote, a 0.3 client, a stream that stops early."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from a2a.types import AgentCapabilities
from a2a_support import Chat, answers, meta

from pyadk.a2a import A2aAgentExecutor, AgentCardBuilder
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
