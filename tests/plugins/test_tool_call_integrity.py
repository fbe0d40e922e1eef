"""ToolCallIntegrityPlugin: stored function calls are stamped and checked before they run."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events.event import Event
from pyadk.plugins import ToolCallIntegrityError, ToolCallIntegrityPlugin
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import ScriptedModel, function_call
from pyadk.tools import FunctionTool, ToolContext
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests

KEY = b"k" * 32
STAMPS = "__adk_internal_fc_hmac"


class Bank:
    """A tool whose calls wait for approval, so they run in a later turn."""

    def __init__(self) -> None:
        self.ran: list[int] = []
        self.contexts: list[ToolContext] = []

    def transfer(self, amount: int, tool_context: ToolContext) -> dict[str, Any]:
        """Moves money."""
        self.ran.append(amount)
        self.contexts.append(tool_context)
        return {"status": "done", "amount": amount}

    def agent(self, replies: list[Any], require: bool = True) -> LlmAgent:
        tool = FunctionTool(self.transfer, require_confirmation=require)
        return LlmAgent(name="bank", model=ScriptedModel(replies), tools=[tool])


class Session:
    """One session of a session service, run by runners with any plugins."""

    def __init__(self, service: BaseSessionService | None = None) -> None:
        self.service = service or InMemorySessionService()
        self.id: str | None = None

    async def run(self, agent: LlmAgent, message: Any, plugins: list[Any]) -> list[Event]:
        if self.id is None:
            self.id = (await self.service.create_session(app_name="app", user_id="u")).id
        if isinstance(message, str):
            message = types.Content(role="user", parts=[types.Part(text=message)])
        runner = Runner(app_name="app", agent=agent, session_service=self.service, plugins=plugins)
        return [
            e async for e in runner.run_async(user_id="u", session_id=self.id, new_message=message)
        ]

    async def events(self) -> list[Event]:
        assert self.id is not None
        stored = await self.service.get_session(app_name="app", user_id="u", session_id=self.id)
        assert stored is not None
        return stored.events

    async def append(self, event: Event) -> None:
        """What someone with write access to the store could add."""
        assert self.id is not None
        stored = await self.service.get_session(app_name="app", user_id="u", session_id=self.id)
        assert stored is not None
        await self.service.append_event(stored, event)


def call_event(events: list[Event], name: str = "transfer") -> Event:
    return next(e for e in events if any(c.name == name for c in e.get_function_calls()))


def integrity_cause(error: pytest.ExceptionInfo[RuntimeError]) -> ToolCallIntegrityError:
    cause = error.value.__cause__
    assert isinstance(cause, ToolCallIntegrityError), error.value
    return cause


async def test_calls_are_stamped_when_stored_and_an_approved_call_runs() -> None:
    bank = Bank()
    session = Session()
    plugin = ToolCallIntegrityPlugin(secret_key=KEY)
    agent = bank.agent([function_call("transfer", {"amount": 100}), "Paid."])

    events = await session.run(agent, "pay 100", [plugin])
    [request] = confirmation_requests(events[-1])
    stored_call = call_event(await session.events())
    [call] = stored_call.get_function_calls()
    stamps = stored_call.custom_metadata[STAMPS]
    assert list(stamps) == [call.id] and stamps[call.id].startswith("v1:")
    # The framework's own request event is stamped too.
    assert STAMPS in events[-1].custom_metadata

    events = await session.run(agent, confirmation_answer(request, confirmed=True), [plugin])
    assert bank.ran == [100] and events[-1].text == "Paid."


async def test_a_call_changed_in_the_store_is_refused_before_it_runs() -> None:
    bank = Bank()
    session = Session()
    plugin = ToolCallIntegrityPlugin(secret_key=KEY)
    agent = bank.agent([function_call("transfer", {"amount": 100}), "Paid."])
    events = await session.run(agent, "pay 100", [plugin])
    [request] = confirmation_requests(events[-1])

    original = call_event(await session.events())
    forged = original.model_copy(deep=True)
    forged.id = Event.new_id()
    forged.content.parts[0].function_call.args = {"amount": 1_000_000}
    await session.append(forged)  # the stamp of the original, copied along

    with pytest.raises(RuntimeError) as raised:
        await session.run(agent, confirmation_answer(request, confirmed=True), [plugin])
    call_id = original.get_function_calls()[0].id
    assert str(integrity_cause(raised)) == (
        f"transfer call {call_id!r} does not match its integrity stamp."
    )
    assert "tool_call_integrity" in str(raised.value)
    assert bank.ran == []


async def test_a_tool_runs_only_with_the_arguments_of_its_stored_call() -> None:
    bank = Bank()
    session = Session()
    plugin = ToolCallIntegrityPlugin(secret_key=KEY)
    agent = bank.agent([function_call("transfer", {"amount": 7}), "ok"], require=False)
    await session.run(agent, "pay 7", [plugin])
    [context] = bank.contexts
    tool = agent.tools[0]

    assert (
        await plugin.before_tool_callback(
            tool=tool,
            tool_args={"amount": 7.0},
            tool_context=context,  # a double from a store
        )
        is None
    )
    with pytest.raises(ToolCallIntegrityError, match="arguments do not match its stored call"):
        await plugin.before_tool_callback(tool=tool, tool_args={"amount": 8}, tool_context=context)
    context.function_call_id = None
    with pytest.raises(ToolCallIntegrityError, match="call has no id"):
        await plugin.before_tool_callback(tool=tool, tool_args={"amount": 7}, tool_context=context)
    context.function_call_id = "never-stored"
    with pytest.raises(ToolCallIntegrityError, match="'never-stored' has no integrity stamp"):
        await plugin.before_tool_callback(tool=tool, tool_args={"amount": 7}, tool_context=context)


async def test_unstamped_history_is_refused_unless_allowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = Session()
    bank = Bank()
    agent = bank.agent(
        [function_call("transfer", {"amount": 1}), "one", "two", "three"], require=False
    )
    await session.run(agent, "before the plugin", [])  # stored without stamps

    with pytest.raises(RuntimeError) as raised:
        await session.run(agent, "hi", [ToolCallIntegrityPlugin(secret_key=KEY)])
    assert "has no integrity stamp" in str(integrity_cause(raised))

    lenient = ToolCallIntegrityPlugin(secret_key=KEY, allow_unstamped_calls=True)
    with caplog.at_level(logging.WARNING):
        events = await session.run(agent, "hi", [lenient])
    assert events[-1].text == "two"
    assert "transfer call" in caplog.text and "has no integrity stamp" in caplog.text


async def test_keys_can_be_rotated() -> None:
    session = Session()
    old, new = b"old-key", b"new-key"
    agent = Bank().agent(
        [function_call("transfer", {"amount": 1}), "one", "two", "three"], require=False
    )
    await session.run(agent, "first", [ToolCallIntegrityPlugin(secret_key=old)])

    events = await session.run(agent, "second", [ToolCallIntegrityPlugin(secret_key=[new, old])])
    assert events[-1].text == "two"
    with pytest.raises(RuntimeError) as raised:
        await session.run(agent, "third", [ToolCallIntegrityPlugin(secret_key=new)])
    assert "does not match its integrity stamp" in str(integrity_cause(raised))

    for bad in (b"", [], [b"ok", ""], "text"):
        with pytest.raises(ValueError, match="secret_key must be non-empty bytes"):
            ToolCallIntegrityPlugin(secret_key=bad)  # type: ignore[arg-type]


async def test_restored_history_passes_but_its_calls_never_run() -> None:
    source = Session()
    bank = Bank()
    agent = bank.agent([function_call("transfer", {"amount": 3}), "done", "more"], require=False)
    plugin = ToolCallIntegrityPlugin(secret_key=KEY)
    await source.run(agent, "pay 3", [plugin])

    target = Session(source.service)
    target.id = (await target.service.create_session(app_name="app", user_id="u")).id
    original = call_event(await source.events())
    restored = ToolCallIntegrityPlugin.prepare_restored_event(original)
    assert restored.custom_metadata == {"__adk_internal_restored_event": True}
    assert STAMPS in original.custom_metadata  # the original is not changed
    await target.append(restored)

    events = await target.run(agent, "go on", [plugin])  # the copied history is accepted
    assert events[-1].text == "more"

    [context] = bank.contexts
    context._invocation_context.session = await target.service.get_session(
        app_name="app", user_id="u", session_id=target.id
    )
    with pytest.raises(ToolCallIntegrityError, match="comes from restored history"):
        await plugin.before_tool_callback(
            tool=agent.tools[0], tool_args={"amount": 3}, tool_context=context
        )


async def test_repeated_call_ids_and_malformed_stamps_are_refused() -> None:
    session = Session()
    twice = [function_call("transfer", {"amount": 1}, id="same")] * 2
    agent = Bank().agent([twice], require=False)
    with pytest.raises(RuntimeError) as raised:
        await session.run(agent, "go", [ToolCallIntegrityPlugin(secret_key=KEY)])
    assert "repeats function call id 'same'" in str(integrity_cause(raised))

    session = Session()
    agent = Bank().agent([function_call("transfer", {"amount": 1}), "ok", "x"], require=False)
    plugin = ToolCallIntegrityPlugin(secret_key=KEY)
    await session.run(agent, "go", [plugin])
    bad = call_event(await session.events()).model_copy(deep=True)
    bad.id = Event.new_id()
    bad.content.parts[0].function_call.id = "other"
    bad.custom_metadata = {STAMPS: {"other": 42}}
    await session.append(bad)
    with pytest.raises(RuntimeError) as raised:
        await session.run(agent, "again", [plugin])
    assert str(integrity_cause(raised)) == f"Event {bad.id!r} has a malformed integrity stamp."


async def test_stamps_survive_a_sqlite_store(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'sessions.db'}"
    bank = Bank()
    agent = bank.agent([function_call("transfer", {"amount": 5}), "Paid.", "Hello."])
    plugin = ToolCallIntegrityPlugin(secret_key=KEY)
    first = Session(SqliteSessionService(uri))
    events = await first.run(agent, "pay 5", [plugin])
    [request] = confirmation_requests(events[-1])

    second = Session(SqliteSessionService(uri))  # a fresh process reading the file
    second.id = first.id
    events = await second.run(agent, confirmation_answer(request, confirmed=True), [plugin])
    assert bank.ran == [5]
    assert (await second.run(agent, "hi", [plugin]))[-1].text == "Hello."


async def test_workflow_tool_nodes_are_not_checked() -> None:
    from pyadk.workflow import START, Workflow, node_output

    def double(x: int) -> int:
        """Doubles x."""
        return 2 * x

    flow = Workflow(name="wf", edges=[(START, FunctionTool(double))])
    session = Session()
    events = await session.run(flow, '{"x": 21}', [ToolCallIntegrityPlugin(secret_key=KEY)])
    assert node_output(events[-1]) == 42


async def test_it_checks_reflection_calls_parallel_calls_and_parallel_branches() -> None:
    from pyadk.agents import ParallelAgent
    from pyadk.models.llm_response import LlmResponse
    from pyadk.plugins import ReflectAndRetryModelPlugin

    malformed = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="")]),
        finish_reason=types.FinishReason.MALFORMED_FUNCTION_CALL,
        error_code="MALFORMED_FUNCTION_CALL",
        error_message="bad",
    )
    banks = [Bank(), Bank()]
    branches = []
    for i, bank in enumerate(banks):
        pay_twice = [
            function_call("transfer", {"amount": i}),
            function_call("transfer", {"amount": 9}),
        ]
        branch = bank.agent([malformed, pay_twice, "paid", "second turn"], require=False)
        branch.name = f"bank{i}"
        branches.append(branch)
    team = ParallelAgent(name="team", sub_agents=branches)
    session = Session()
    plugins = [ToolCallIntegrityPlugin(secret_key=KEY), ReflectAndRetryModelPlugin()]

    await session.run(team, "pay", plugins)

    assert sorted(banks[0].ran) == [0, 9] and sorted(banks[1].ran) == [1, 9]
    stored = await session.events()
    reflection = [
        e for e in stored if [c.name for c in e.get_function_calls()] == ["adk_handle_model_error"]
    ]
    assert len(reflection) == 2 and all(STAMPS in e.custom_metadata for e in reflection)
    assert {e.branch for e in reflection} == {"team.bank0", "team.bank1"}
    # The whole history verifies on the next turn.
    events = await session.run(team, "again", plugins)
    assert sorted(e.text for e in events if e.text) == ["second turn", "second turn"]
