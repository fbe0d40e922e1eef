"""Failures reach the caller as error events; the caller's run goes on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from a2a_support import Chat, answers, meta

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.remote_a2a_agent import RemoteA2aAgent
from pyadk.runners import Runner
from pyadk.testing import ScriptedModel, function_call
from pyadk.tools.long_running_tool import LongRunningFunctionTool


async def test_unreachable_card_url_is_an_error_event(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/.well-known/agent-card.json"
    events = await Chat(RemoteA2aAgent(name="ghost", agent_card=url)).say("anyone?")

    errors = [e for e in events if e.error_code]
    assert [e.error_code for e in errors] == ["A2A_INITIALIZATION_ERROR"]
    assert errors[0].author == "ghost"
    assert url in (errors[0].error_message or "")


async def test_invalid_card_file_is_an_error_event(tmp_path: Path) -> None:
    card = tmp_path / "card.json"
    card.write_text("{not json")
    events = await Chat(RemoteA2aAgent(name="broken", agent_card=str(card))).say("hi")

    assert [e.error_code for e in events if e.error_code] == ["A2A_INITIALIZATION_ERROR"]
    assert str(card) in (events[0].error_message or "")


async def test_card_pointing_elsewhere_is_refused(serve_a2a: Callable[..., str]) -> None:
    # the card advertises port 1, not the port it was fetched from
    agent = LlmAgent(name="liar", model=ScriptedModel(["never"]))
    url = serve_a2a(agent)
    from a2a.types import AgentCard, AgentInterface

    card = AgentCard(name="liar", description="d", version="1")
    card.supported_interfaces.append(
        AgentInterface(url="http://127.0.0.1:1", protocol_binding="JSONRPC", protocol_version="1.0")
    )
    lying = serve_a2a(agent, agent_card=card)
    assert url != lying

    events = await Chat(RemoteA2aAgent(name="liar", agent_card=lying)).say("hi")

    assert [e.error_code for e in events if e.error_code] == ["A2A_INITIALIZATION_ERROR"]
    assert "same origin" in (events[0].error_message or "")


async def test_remote_that_raises_gives_a_failed_task_error_event(
    serve_a2a: Callable[..., str],
) -> None:
    model = ScriptedModel([RuntimeError("model exploded")])
    chat = Chat(
        RemoteA2aAgent(name="fragile", agent_card=serve_a2a(LlmAgent(name="fragile", model=model)))
    )

    events = await chat.say("hi")

    failed = [e for e in events if e.error_code]
    assert [e.error_code for e in failed] == ["A2A_TASK_FAILED"]
    assert failed[0].error_message == "Remote A2A task failed: model exploded"
    assert meta(failed[0], "response")["status"]["state"] == "TASK_STATE_FAILED"


async def test_remote_failing_mid_task_keeps_the_progress_and_reports_the_failure(
    serve_a2a: Callable[..., str],
) -> None:
    def lookup(key: str) -> str:
        """Looks a key up."""
        return f"value of {key}"

    model = ScriptedModel([function_call("lookup", {"key": "k"}), RuntimeError("lost the thread")])
    remote = LlmAgent(name="halfway", model=model, tools=[lookup])
    chat = Chat(RemoteA2aAgent(name="halfway", agent_card=serve_a2a(remote)))

    events = await chat.say("go")

    progress = [p for e in events if e.content for p in e.content.parts or [] if p.thought]
    assert [bool(p.function_call) for p in progress] == [True, False]
    failed = [e for e in events if e.error_code]
    assert [e.error_code for e in failed] == ["A2A_TASK_FAILED"]
    assert "lost the thread" in (failed[0].error_message or "")
    # pyadk records the remote's failure as this agent's outcome
    assert events[-1].actions.agent_outcome is not None
    assert events[-1].actions.agent_outcome.status == "failure"
    # the caller's session survives: a later turn starts a new remote task
    model.replies.append("recovered")
    assert answers(await chat.say("again")) == ["recovered"]


async def test_server_gone_between_turns_is_a_request_error(
    serve_a2a: Callable[..., str], closed_port: int
) -> None:
    url = serve_a2a(LlmAgent(name="flaky", model=ScriptedModel(["up"])))
    import httpx
    from a2a.client.card_resolver import parse_agent_card

    card = parse_agent_card(httpx.get(url).json())
    card.supported_interfaces[0].url = f"http://127.0.0.1:{closed_port}"
    chat = Chat(RemoteA2aAgent(name="flaky", agent_card=card))

    events = await chat.say("hi")

    errors = [e for e in events if e.error_code]
    assert [e.error_code for e in errors] == ["A2A_REQUEST_ERROR"]
    assert (errors[0].error_message or "").startswith("A2A request failed:")
    assert meta(errors[0], "request")["parts"][0]["text"] == "hi"


async def test_remote_error_answer_is_a_request_error(serve_a2a: Callable[..., str]) -> None:
    # the remote that paused is replaced by one that never heard of the task
    def ask(amount: int) -> str:
        """Asks for approval."""
        return "pending"

    first_model = ScriptedModel([function_call("ask", {"amount": 1}), "waiting"])
    paused_url = serve_a2a(
        LlmAgent(name="desk", model=first_model, tools=[LongRunningFunctionTool(ask)])
    )
    chat = Chat(RemoteA2aAgent(name="desk", agent_card=paused_url))
    pause = (await chat.say("approve 1"))[-1]
    assert pause.content is not None
    call = pause.content.parts[0].function_call
    assert call is not None

    fresh_url = serve_a2a(LlmAgent(name="desk", model=ScriptedModel(["?"])))
    fresh = Runner(
        app_name="caller",
        agent=RemoteA2aAgent(name="desk", agent_card=fresh_url),
        session_service=chat.runner.session_service,
    )
    answer = types.Part.from_function_response(name=call.name, response={"ok": True})
    assert answer.function_response is not None
    answer.function_response.id = call.id
    events = [
        e
        async for e in fresh.run_async(
            user_id="u",
            session_id=chat.session_id or "",
            new_message=types.Content(role="user", parts=[answer]),
        )
    ]

    errors = [e for e in events if e.error_code]
    assert [e.error_code for e in errors] == ["A2A_REQUEST_ERROR"]
    assert "task" in (errors[0].error_message or "").lower(), errors[0].error_message
    assert meta(errors[0], "request")["taskId"] == meta(pause, "task_id")
