"""Function calls in live runs: executed, with callbacks and state, answered to the model."""

from __future__ import annotations

import asyncio
from typing import Any

from live_support import make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent
from pyadk.testing import ScriptedLiveModel, function_call
from pyadk.tools.tool_context import ToolContext


async def test_a_function_call_runs_and_its_response_goes_back_to_the_model() -> None:
    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"forecast": f"sunny in {city}"}

    model = ScriptedLiveModel(
        [function_call("get_weather", {"city": "Paris"}, id="call-1"), "It is sunny in Paris."]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model, tools=[get_weather]))
    queue = LiveRequestQueue()
    queue.send_content(user("weather in Paris?"))

    events = await live.run(queue, close_after_turns=2)

    calls = [e for e in events if e.get_function_calls()]
    results = [e for e in events if e.get_function_responses()]
    assert [c.name for c in calls[0].get_function_calls()] == ["get_weather"]
    (response,) = results[0].get_function_responses()
    assert response.id == "call-1"
    assert response.response == {"forecast": "sunny in Paris"}
    assert results[0].author == "assistant"
    assert texts(events)[-1] == "It is sunny in Paris."
    # The model got the function response as a whole turn, after the user's question.
    sent = model.connections[0].sent
    assert isinstance(sent[1], types.Content)
    assert sent[1].parts is not None and sent[1].parts[0].function_response is not None
    assert sent[1].parts[0].function_response.response == {"forecast": "sunny in Paris"}
    # Calls and results are stored, in order.
    stored = await live.stored()
    kinds = [
        "call" if e.get_function_calls() else "result" if e.get_function_responses() else "-"
        for e in stored
    ]
    assert kinds.index("call") < kinds.index("result")


async def test_parallel_calls_run_concurrently_and_answer_in_one_event() -> None:
    both_started = asyncio.Event()
    started: list[str] = []

    async def slow(name: str) -> str:
        """Waits for the other call."""
        started.append(name)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 2)
        return name.upper()

    model = ScriptedLiveModel(
        [
            [function_call("slow", {"name": "a"}), function_call("slow", {"name": "b"})],
            "Done.",
        ]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model, tools=[slow]))
    queue = LiveRequestQueue()
    queue.send_content(user("go"))

    events = await live.run(queue, close_after_turns=2)

    (result,) = [e for e in events if e.get_function_responses()]
    assert [r.response for r in result.get_function_responses()] == [
        {"result": "A"},
        {"result": "B"},
    ]


async def test_tool_state_changes_are_stored_in_the_session() -> None:
    def remember(color: str, tool_context: ToolContext) -> str:
        """Remembers a color."""
        tool_context.state["favorite_color"] = color
        return "noted"

    model = ScriptedLiveModel([function_call("remember", {"color": "blue"}), "Noted."])
    live = await make_harness(LlmAgent(name="assistant", model=model, tools=[remember]))
    queue = LiveRequestQueue()
    queue.send_content(user("I like blue"))

    events = await live.run(queue, close_after_turns=2)

    (result,) = [e for e in events if e.get_function_responses()]
    assert result.actions.state_delta == {"favorite_color": "blue"}
    assert (await live.state())["favorite_color"] == "blue"


async def test_tool_callbacks_run_as_in_run_async() -> None:
    seen: list[tuple[str, Any]] = []

    def before(tool, args, tool_context):
        seen.append(("before", dict(args)))
        if args.get("city") == "Atlantis":
            return {"error": "no such city"}
        return None

    def after(tool, args, tool_context, tool_response):
        seen.append(("after", tool_response))
        if "forecast" not in tool_response:
            return None
        return {"forecast": tool_response["forecast"].upper()}

    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"forecast": f"rain in {city}"}

    model = ScriptedLiveModel(
        [
            function_call("get_weather", {"city": "Atlantis"}),
            function_call("get_weather", {"city": "Oslo"}),
            "Rain.",
        ]
    )
    agent = LlmAgent(
        name="assistant",
        model=model,
        tools=[get_weather],
        before_tool_callback=before,
        after_tool_callback=after,
    )
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("weather?"))

    events = await live.run(queue, close_after_turns=3)

    results = [e.get_function_responses()[0].response for e in events if e.get_function_responses()]
    assert results == [{"error": "no such city"}, {"forecast": "RAIN IN OSLO"}]
    assert seen == [
        ("before", {"city": "Atlantis"}),
        ("after", {"error": "no such city"}),
        ("before", {"city": "Oslo"}),
        ("after", {"forecast": "rain in Oslo"}),
    ]


async def test_an_unknown_tool_gets_an_error_result_and_the_run_goes_on() -> None:
    model = ScriptedLiveModel([function_call("missing", {}), "Sorry."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("do it"))

    events = await live.run(queue, close_after_turns=2)

    (result,) = [e for e in events if e.get_function_responses()]
    response = result.get_function_responses()[0].response
    assert response is not None and "'missing' is not available" in response["error"]
    assert texts(events)[-1] == "Sorry."


async def test_a_tool_result_after_the_client_closed_is_stored_but_not_sent() -> None:
    def note(text: str) -> str:
        """Takes a note."""
        return "saved"

    model = ScriptedLiveModel([function_call("note", {"text": "milk"})])
    live = await make_harness(LlmAgent(name="assistant", model=model, tools=[note]))
    queue = LiveRequestQueue()
    queue.send_content(user("note milk"))
    queue.close()  # before the model's call arrives

    events = await live.run(queue)

    assert [
        e.get_function_responses()[0].response for e in events if e.get_function_responses()
    ] == [{"result": "saved"}]
    assert model.reply_count == 1  # the result was not sent: no reply was asked for
    assert any(e.get_function_responses() for e in await live.stored())
