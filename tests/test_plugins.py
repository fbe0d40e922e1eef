"""Plugins: Runner-wide hooks that run before the agents' own callbacks."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import CallbackContext, InvocationContext, LlmAgent
from pyadk.events.event import Event
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins import BasePlugin
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import BaseTool, ToolContext


def add(a: int, b: int) -> int:
    return a + b


class Recorder(BasePlugin):
    """Logs every hook into a shared list; returns ``answers[hook]`` when configured."""

    def __init__(self, name: str, log: list[str], **answers: Any) -> None:
        super().__init__(name)
        self.log = log
        self.answers = answers

    def _hit(self, hook: str) -> Any:
        self.log.append(f"{self.name}.{hook}")
        return self.answers.get(hook)

    async def on_user_message_callback(self, **kwargs: Any) -> Any:
        return self._hit("on_user_message")

    async def before_run_callback(self, **kwargs: Any) -> Any:
        return self._hit("before_run")

    async def after_run_callback(self, **kwargs: Any) -> None:
        self._hit("after_run")

    async def before_agent_callback(self, **kwargs: Any) -> Any:
        return self._hit("before_agent")

    async def before_model_callback(self, **kwargs: Any) -> Any:
        return self._hit("before_model")

    async def before_tool_callback(self, **kwargs: Any) -> Any:
        return self._hit("before_tool")

    async def after_tool_callback(self, **kwargs: Any) -> Any:
        return self._hit("after_tool")


def _agent(log: list[str], model: ScriptedModel) -> LlmAgent:
    """An agent whose own callbacks log into ``log`` and never short-circuit."""

    def cb(name: str) -> Any:
        def callback(**kwargs: Any) -> None:
            log.append(f"agent.{name}")

        return callback

    return LlmAgent(
        name="root",
        model=model,
        tools=[add],
        before_agent_callback=cb("before_agent"),
        before_model_callback=cb("before_model"),
        before_tool_callback=cb("before_tool"),
        after_tool_callback=cb("after_tool"),
    )


async def test_plugins_run_before_agent_callbacks_in_registration_order() -> None:
    log: list[str] = []
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    runner = TestRunner(_agent(log, model), plugins=[Recorder("p1", log), Recorder("p2", log)])

    events = await runner.run("1+2")

    assert simplify_events(events)[-1] == ("root", "3")
    assert log == [
        "p1.on_user_message", "p2.on_user_message",
        "p1.before_run", "p2.before_run",
        "p1.before_agent", "p2.before_agent", "agent.before_agent",
        "p1.before_model", "p2.before_model", "agent.before_model",
        "p1.before_tool", "p2.before_tool", "agent.before_tool",
        "p1.after_tool", "p2.after_tool", "agent.after_tool",
        "p1.before_model", "p2.before_model", "agent.before_model",
        "p1.after_run", "p2.after_run",
    ]  # fmt: skip


async def test_plugin_before_model_result_skips_later_plugins_callbacks_and_model() -> None:
    log: list[str] = []
    cached = LlmResponse(content=types.ModelContent("cached answer"))
    model = ScriptedModel([])
    plugins = [Recorder("cache", log, before_model=cached), Recorder("later", log)]
    runner = TestRunner(_agent(log, model), plugins=plugins)

    events = await runner.run("hi")

    assert simplify_events(events) == [("root", "cached answer")]
    assert model.call_count == 0
    assert "later.before_model" not in log and "agent.before_model" not in log


async def test_plugin_before_tool_result_skips_the_tool_and_agent_callback() -> None:
    log: list[str] = []
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "ok"])
    plugin = Recorder("guard", log, before_tool={"denied": "policy"})
    runner = TestRunner(_agent(log, model), plugins=[plugin])

    events = await runner.run("go")

    assert simplify_events(events)[1] == ("root", "response:add({'denied': 'policy'})")
    assert "agent.before_tool" not in log
    # after-tool hooks still see the (substituted) result
    assert "guard.after_tool" in log and "agent.after_tool" in log


async def test_plugin_after_tool_result_replaces_the_tool_result() -> None:
    seen: list[Any] = []

    class Redact(BasePlugin):
        async def after_tool_callback(
            self,
            *,
            tool: BaseTool,
            tool_args: dict[str, Any],
            tool_context: ToolContext,
            result: Any,
        ) -> dict[str, Any]:
            seen.append((tool.name, tool_args, result))
            return {"result": "[redacted]"}

    log: list[str] = []
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "ok"])
    runner = TestRunner(_agent(log, model), plugins=[Redact("redact")])

    events = await runner.run("go")

    assert seen == [("add", {"a": 1, "b": 2}, 3)]
    assert simplify_events(events)[1] == ("root", "response:add({'result': '[redacted]'})")
    assert "agent.after_tool" not in log
    assert model.requests[1].contents[-1].parts[0].function_response.response == {
        "result": "[redacted]"
    }


async def test_plugin_before_agent_content_skips_the_agent() -> None:
    log: list[str] = []
    model = ScriptedModel([])
    maintenance = types.ModelContent("Down for maintenance.")
    runner = TestRunner(
        _agent(log, model), plugins=[Recorder("gate", log, before_agent=maintenance)]
    )

    events = await runner.run("hi")

    assert simplify_events(events) == [("root", "Down for maintenance.")]
    assert model.call_count == 0
    assert "agent.before_agent" not in log
    stored = (await runner.session()).events[-1]
    assert stored.content.text == "Down for maintenance."
    assert stored.actions.agent_outcome.status == "skipped"


async def test_on_event_callback_replaces_the_yielded_and_stored_event() -> None:
    class Stamp(BasePlugin):
        async def on_event_callback(
            self, *, invocation_context: InvocationContext, event: Event
        ) -> Event | None:
            if event.content is None or event.content.text is None:
                return None
            stamped = event.model_copy(deep=True)
            stamped.content = types.ModelContent(f"{event.content.text} [checked]")
            stamped.custom_metadata = {"plugin": self.name}
            return stamped

    runner = TestRunner(LlmAgent(name="root", model=ScriptedModel(["hello"])), plugins=[Stamp("s")])

    events = await runner.run("hi")

    assert [(e.content.text, e.custom_metadata) for e in events] == [
        ("hello [checked]", {"plugin": "s"})
    ]
    stored = (await runner.session()).events[-1]
    assert (stored.id, stored.content.text) == (events[0].id, "hello [checked]")


async def test_before_run_callback_content_ends_the_run() -> None:
    log: list[str] = []
    model = ScriptedModel([])
    quota = types.ModelContent("Quota exceeded.")
    runner = TestRunner(_agent(log, model), plugins=[Recorder("quota", log, before_run=quota)])

    events = await runner.run("hi")

    assert simplify_events(events) == [("root", "Quota exceeded.")]
    assert model.call_count == 0
    assert not any(entry.endswith("before_agent") for entry in log)
    assert log[-1] == "quota.after_run"
    stored = (await runner.session()).events
    assert [(e.author, e.content.text) for e in stored] == [
        ("user", "hi"),
        ("root", "Quota exceeded."),
    ]


async def test_on_user_message_callback_replaces_the_message() -> None:
    class Mask(BasePlugin):
        async def on_user_message_callback(
            self, *, invocation_context: InvocationContext, user_message: types.Content
        ) -> types.Content:
            return types.UserContent(user_message.text.replace("4111", "****"))

    model = ScriptedModel(["noted"])
    runner = TestRunner(LlmAgent(name="root", model=model), plugins=[Mask("mask")])

    await runner.run("card 4111")

    assert model.requests[0].contents[0].text == "card ****"
    assert (await runner.session()).events[0].content.text == "card ****"


async def test_after_run_callback_runs_once_after_all_events() -> None:
    seen: list[int] = []

    class Count(BasePlugin):
        async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
            seen.append(len(invocation_context.session.events))

    runner = TestRunner(
        LlmAgent(name="root", model=ScriptedModel(["a", "b"])), plugins=[Count("c")]
    )

    await runner.run("one")
    assert seen == [2]  # user message + answer were stored before after_run
    await runner.run("two")
    assert seen == [2, 4]


def test_duplicate_plugin_name_is_rejected() -> None:
    agent = LlmAgent(name="root", model=ScriptedModel([]))
    with pytest.raises(ValueError, match="'audit'"):
        TestRunner(agent, plugins=[BasePlugin("audit"), BasePlugin("audit")])


async def test_plugin_raising_gives_an_error_naming_the_plugin() -> None:
    class Broken(BasePlugin):
        async def before_model_callback(
            self, *, callback_context: CallbackContext, llm_request: LlmRequest
        ) -> None:
            raise KeyError("missing api key")

    runner = TestRunner(LlmAgent(name="root", model=ScriptedModel(["x"])), plugins=[Broken("auth")])

    with pytest.raises(RuntimeError, match=r"'auth'.*before_model_callback") as info:
        await runner.run("hi")
    assert isinstance(info.value.__cause__, KeyError)


class ErrorWatcher(BasePlugin):
    """Records the error hooks; ``broken`` makes its own hooks raise."""

    def __init__(self, name: str, seen: list[tuple[str, str, str]], broken: bool = False) -> None:
        super().__init__(name)
        self.seen, self.broken = seen, broken

    async def on_agent_error_callback(
        self, *, agent: Any, callback_context: CallbackContext, error: Exception
    ) -> None:
        self.seen.append((self.name, f"agent {agent.name}", repr(error)))
        if self.broken:
            raise RuntimeError("the watcher itself failed")

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        self.seen.append((self.name, f"run {invocation_context.agent.name}", repr(error)))
        if self.broken:
            raise RuntimeError("the watcher itself failed")


async def test_error_hooks_are_told_of_an_error_that_escapes_and_it_is_raised_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pyadk.agents import SequentialAgent

    def explode(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        raise ValueError("boom")

    inner = LlmAgent(name="inner", model=ScriptedModel(["x"]), before_model_callback=explode)
    seen: list[tuple[str, str, str]] = []
    plugins = [ErrorWatcher("first", seen, broken=True), ErrorWatcher("second", seen)]
    runner = TestRunner(SequentialAgent(name="root", sub_agents=[inner]), plugins=plugins)

    with pytest.raises(ValueError, match="boom"):  # notification only: the error goes on
        await runner.run("hi")
    boom = repr(ValueError("boom"))
    assert seen == [
        ("first", "agent inner", boom),  # every plugin is told, even after one failed
        ("second", "agent inner", boom),
        ("first", "agent root", boom),  # the error escapes each agent on its way out
        ("second", "agent root", boom),
        ("first", "run root", boom),
        ("second", "run root", boom),
    ]
    assert "Plugin 'first' failed in on_agent_error_callback" in caplog.text


async def test_error_hooks_are_not_told_of_a_run_that_ends_well_or_over_budget() -> None:
    from pyadk.agents import Budget, RunConfig

    seen: list[tuple[str, str, str]] = []
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    runner = TestRunner(
        LlmAgent(name="root", model=model, tools=[add]), plugins=[ErrorWatcher("watcher", seen)]
    )
    await runner.run("1+2?")
    over = RunConfig(budget=Budget(llm_calls=1))
    events = await TestRunner(
        LlmAgent(
            name="root",
            model=ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"]),
            tools=[add],
        ),
        plugins=[ErrorWatcher("watcher", seen)],
    ).run("1+2?", run_config=over)
    assert events[-1].error_code == "BUDGET_EXCEEDED"
    assert seen == []
