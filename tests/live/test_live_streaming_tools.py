"""Streaming tools in live runs: async-generator tools run in the background, their
values go to the model, ``stop_streaming`` and the run's end cancel them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from live_support import TEXT, make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent
from pyadk.events.event import Event
from pyadk.flows.live_streaming_tools import PENDING_STATUS
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedLiveModel, ScriptedModel, function_call
from pyadk.tools import FunctionTool
from pyadk.tools.tool_context import ToolContext
from pyadk.tools.tool_progress import ToolProgress


def responses_sent(model: ScriptedLiveModel) -> list[dict[str, Any] | None]:
    """The function responses the model's first connection got, in order."""
    found = []
    for item in model.connections[0].sent:
        if isinstance(item, types.Content):
            for part in item.parts or []:
                if part.function_response is not None:
                    found.append(part.function_response.response)
    return found


class Gate:
    """Lets a test wait, without a clock, for a tool to reach a point."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.cancelled = False


async def test_values_go_to_the_model_in_order_after_the_pending_answer() -> None:
    gate = Gate()

    async def count(n: int) -> AsyncIterator[Any]:
        """Counts to n."""
        try:
            for i in range(n):
                yield {"tick": i}
        finally:
            gate.reached.set()

    model = ScriptedLiveModel([function_call("count", {"n": 3}), "Counting.", "Bye."])
    live = await make_harness(LlmAgent(name="counter", model=model, tools=[count]))
    queue = LiveRequestQueue()
    queue.send_content(user("count to three"))

    async def after_answer(event: Event) -> None:
        if event.text == "Counting.":
            await gate.reached.wait()
            queue.send_content(user("bye"))  # behind the values in the queue

    events = await live.run(queue, close_after_turns=3, on_event=after_answer)

    pending = {"status": PENDING_STATUS}
    assert responses_sent(model) == [pending, {"tick": 0}, {"tick": 1}, {"tick": 2}]
    connection = model.connections[0]
    assert [c.parts[0].function_response.response for c in connection.partial_contents] == [
        {"tick": 0},
        {"tick": 1},
        {"tick": 2},
    ]
    assert connection.sent[-1] == user("bye")
    # The call answers at once; the values are not events of the client, nor stored.
    results = [e for e in events if e.get_function_responses()]
    assert [r.response for e in results for r in e.get_function_responses()] == [pending]
    assert texts(events) == ["Counting.", "Bye."]
    stored = await live.stored()
    assert [r.response for e in stored for r in e.get_function_responses()] == [pending]
    # The model is offered stop_streaming; input_stream-like framework values are hidden.
    declarations = model.requests[0].config.tools[0].function_declarations
    assert [d.name for d in declarations] == ["count", "stop_streaming"]


async def test_an_event_the_tool_yields_reaches_the_client_and_is_stored() -> None:
    gate = Gate()

    async def announce() -> AsyncIterator[Any]:
        """Announces news."""
        yield Event(author="tool", content=types.Content(parts=[types.Part(text="Breaking!")]))
        gate.reached.set()

    model = ScriptedLiveModel([function_call("announce", id="call-1"), "Listening.", "Bye."])
    live = await make_harness(LlmAgent(name="anchor", model=model, tools=[announce]))
    queue = LiveRequestQueue()
    queue.send_content(user("news?"))
    seen: list[Event] = []

    async def on_event(event: Event) -> None:
        if event.branch == "announce@call-1":
            seen.append(event)
        if event.text == "Listening.":
            await gate.reached.wait()
            queue.send_content(user("bye"))

    await live.run(queue, close_after_turns=3, on_event=on_event)

    (delivered,) = seen
    assert delivered.author == "anchor"
    assert delivered.content == types.Content(role="user", parts=[types.Part(text="Breaking!")])
    assert delivered.id in [e.id for e in await live.stored()]
    assert responses_sent(model) == [{"status": PENDING_STATUS}]  # the model got no value


async def test_input_stream_receives_the_clients_realtime_input() -> None:
    gate = Gate()
    streams: list[Any] = []

    async def watch(
        input_stream: LiveRequestQueue, tool_context: ToolContext
    ) -> AsyncIterator[Any]:
        """Describes the video frames."""
        active = tool_context._invocation_context.active_streaming_tools
        streams.append(active is not None and active["watch"].stream is input_stream)
        frames = 0
        while True:
            request = await input_stream.get()
            if request.blob is not None:
                frames += 1
                yield {"frame": frames, "size": len(request.blob.data or b"")}
                if frames == 2:
                    gate.reached.set()

    model = ScriptedLiveModel([function_call("watch"), "Watching.", "Bye."])
    live = await make_harness(LlmAgent(name="viewer", model=model, tools=[watch]))
    queue = LiveRequestQueue()
    queue.send_content(user("watch my camera"))
    frame = types.Blob(mime_type="image/jpeg", data=b"\xff\xd8\xff")

    async def on_event(event: Event) -> None:
        if event.text == "Watching.":
            queue.send_realtime(frame)
            queue.send_realtime(frame.model_copy(update={"data": b"\xff\xd8"}))
            await gate.reached.wait()
            queue.send_content(user("bye"))

    await live.run(queue, close_after_turns=3, on_event=on_event)

    assert streams == [True]
    assert responses_sent(model) == [
        {"status": PENDING_STATUS},
        {"frame": 1, "size": 3},
        {"frame": 2, "size": 2},
    ]
    blobs = [item for item in model.connections[0].sent if isinstance(item, types.Blob)]
    assert len(blobs) == 2  # the model got the frames too
    declaration = model.requests[0].config.tools[0].function_declarations[0]
    assert declaration.parameters is None or "input_stream" not in (
        declaration.parameters.properties or {}
    )


def forever(gate: Gate) -> Callable[[str], AsyncIterator[Any]]:
    """A streaming tool that yields once, then runs until it is cancelled."""

    async def monitor(symbol: str) -> AsyncIterator[Any]:
        """Monitors a stock price."""
        try:
            yield {"price": 100}
            gate.reached.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            gate.cancelled = True
            raise

    return monitor


async def test_stop_streaming_cancels_the_tool_and_answers_when_none_runs() -> None:
    gate = Gate()
    model = ScriptedLiveModel(
        [
            function_call("monitor", {"symbol": "XYZ"}),
            "Monitoring.",
            function_call("stop_streaming", {"function_name": "monitor"}),
            "Stopped.",
            function_call("stop_streaming", {"function_name": "monitor"}),
            "Nothing runs.",
        ]
    )
    live = await make_harness(LlmAgent(name="broker", model=model, tools=[forever(gate)]))
    queue = LiveRequestQueue()
    queue.send_content(user("watch XYZ"))

    async def on_event(event: Event) -> None:
        if event.text == "Monitoring.":
            await gate.reached.wait()
            queue.send_content(user("stop"))
        elif event.text == "Stopped.":
            queue.send_content(user("stop again"))

    events = await live.run(queue, close_after_turns=6, on_event=on_event)

    assert gate.cancelled
    statuses = [
        r.response for e in events for r in e.get_function_responses() if r.name == "stop_streaming"
    ]
    assert statuses == [
        {"status": "Successfully stopped streaming function monitor"},
        {"status": "No active streaming function named monitor found"},
    ]
    assert texts(events)[-1] == "Nothing runs."


async def test_the_agents_own_stop_streaming_tool_stops_streaming_tools() -> None:
    gate = Gate()
    called: list[str] = []

    def stop_streaming(function_name: str) -> None:
        """Stops the streaming (google-adk's samples declare it so)."""
        called.append(function_name)

    model = ScriptedLiveModel(
        [
            function_call("monitor", {"symbol": "XYZ"}),
            "Monitoring.",
            function_call("stop_streaming", {"function_name": "monitor"}),
            "Stopped.",
        ]
    )
    agent = LlmAgent(name="broker", model=model, tools=[forever(gate), stop_streaming])
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("watch XYZ"))

    async def on_event(event: Event) -> None:
        if event.text == "Monitoring.":
            await gate.reached.wait()
            queue.send_content(user("stop"))

    events = await live.run(queue, close_after_turns=4, on_event=on_event)

    assert gate.cancelled and called == []
    (stopped,) = [r for e in events for r in e.get_function_responses() if r.name != "monitor"]
    assert stopped.response == {"status": "Successfully stopped streaming function monitor"}
    declarations = model.requests[0].config.tools[0].function_declarations
    assert [d.name for d in declarations] == ["monitor", "stop_streaming"]  # not offered twice


def streaming_tasks() -> list[asyncio.Task[Any]]:
    return [
        t
        for t in asyncio.all_tasks()
        if t.get_name().startswith("streaming tool ") and not t.done()
    ]


async def test_the_end_of_the_run_cancels_running_tools() -> None:
    gate = Gate()
    model = ScriptedLiveModel([function_call("monitor", {"symbol": "XYZ"}), "Monitoring."])
    live = await make_harness(LlmAgent(name="broker", model=model, tools=[forever(gate)]))
    queue = LiveRequestQueue()
    queue.send_content(user("watch XYZ"))

    async def on_event(event: Event) -> None:
        if event.text == "Monitoring.":
            await gate.reached.wait()
            queue.close()

    await live.run(queue, on_event=on_event)

    assert gate.cancelled
    assert streaming_tasks() == []


async def test_a_caller_that_stops_reading_cancels_running_tools() -> None:
    gate = Gate()
    model = ScriptedLiveModel([function_call("monitor", {"symbol": "XYZ"}), "Monitoring."])
    agent = LlmAgent(name="broker", model=model, tools=[forever(gate)])
    runner = InMemoryRunner(agent, app_name="live_app")
    session = await runner.session_service.create_session(app_name="live_app", user_id="u")
    queue = LiveRequestQueue()
    queue.send_content(user("watch XYZ"))
    events = runner.run_live(
        user_id="u", session_id=session.id, live_request_queue=queue, run_config=TEXT
    )
    async for event in events:
        if event.text == "Monitoring.":
            await gate.reached.wait()
            break
    await events.aclose()

    assert gate.cancelled
    assert streaming_tasks() == []


async def test_a_failing_tool_is_logged_and_the_model_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def monitor(symbol: str) -> AsyncIterator[Any]:
        """Monitors a stock price."""
        yield {"price": 100}
        raise RuntimeError("the price feed is down")

    model = ScriptedLiveModel(
        [function_call("monitor", {"symbol": "XYZ"}), "Monitoring.", "The feed failed."]
    )
    live = await make_harness(LlmAgent(name="broker", model=model, tools=[monitor]))
    queue = LiveRequestQueue()
    queue.send_content(user("watch XYZ"))

    with caplog.at_level(logging.ERROR, logger="pyadk.flows.live_streaming_tools"):
        events = await live.run(queue, close_after_turns=3)

    assert responses_sent(model) == [
        {"status": PENDING_STATUS},
        {"price": 100},
        {"error": "Invoking `monitor()` failed with an internal error."},
    ]
    assert texts(events)[-1] == "The feed failed."  # the model answered the failure
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "'monitor'" in record.getMessage() and "'broker'" in record.getMessage()
    assert record.exc_info is not None and "price feed is down" in str(record.exc_info[1])


async def test_invalid_arguments_answer_the_call_at_once() -> None:
    started: list[int] = []

    async def count(n: int) -> AsyncIterator[Any]:
        """Counts to n."""
        started.append(n)
        yield n

    model = ScriptedLiveModel([function_call("count", {"n": "many"}), "Sorry."])
    live = await make_harness(LlmAgent(name="counter", model=model, tools=[count]))
    queue = LiveRequestQueue()
    queue.send_content(user("count"))

    events = await live.run(queue, close_after_turns=2)

    (result,) = [r for e in events for r in e.get_function_responses()]
    assert result.response is not None and "error" in result.response
    assert started == [] and streaming_tasks() == []


async def test_outside_live_mode_an_async_generator_tool_runs_to_its_last_value() -> None:
    closed: list[int] = []

    async def count(n: int) -> AsyncIterator[Any]:
        """Counts to n."""
        try:
            for i in range(1, n + 1):
                yield {"count": i}
        finally:
            closed.append(n)

    model = ScriptedModel([function_call("count", {"n": 3}), "Done."])
    runner = InMemoryRunner(LlmAgent(name="counter", model=model, tools=[count]), app_name="a")
    session = await runner.session_service.create_session(app_name="a", user_id="u")

    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=user("go"))
    ]

    (result,) = [r for e in events for r in e.get_function_responses()]
    assert result.response == {"count": 3}  # the last value; no progress: not streamed
    assert closed == [3] and not any(e.partial for e in events)
    stored = await runner.session_service.get_session(
        app_name="a", user_id="u", session_id=session.id
    )
    assert stored is not None and stored.events[-1].text == "Done."
    declarations = model.requests[0].config.tools[0].function_declarations
    assert [d.name for d in declarations] == ["count"]  # no stop_streaming


async def test_outside_live_mode_earlier_values_are_progress_when_the_tool_streams_it() -> None:
    async def steps() -> AsyncIterator[Any]:
        """Works in steps."""
        yield "step 1"
        yield {"step": 2}
        yield {"status": "done"}

    model = ScriptedModel([function_call("steps", {}), "Finished."])
    tool = FunctionTool(steps, streams_progress=True)
    runner = InMemoryRunner(LlmAgent(name="worker", model=model, tools=[tool]), app_name="a")
    session = await runner.session_service.create_session(app_name="a", user_id="u")

    events = [
        e
        async for e in runner.run_async(user_id="u", session_id=session.id, new_message=user("go"))
    ]

    progress = [ToolProgress.from_event(e) for e in events if e.partial]
    assert [p.data for p in progress if p is not None] == ["step 1", {"step": 2}]
    (result,) = [r for e in events for r in e.get_function_responses()]
    assert result.response == {"status": "done"}


async def test_a_transfer_stops_the_tools_of_the_agent_it_leaves() -> None:
    gate = Gate()
    helper_model = ScriptedLiveModel(["Helper here."])
    model = ScriptedLiveModel(
        [
            function_call("monitor", {"symbol": "XYZ"}),
            "Monitoring.",
            function_call("transfer_to_agent", {"agent_name": "helper"}),
        ]
    )
    helper = LlmAgent(name="helper", model=helper_model)
    agent = LlmAgent(name="broker", model=model, tools=[forever(gate)], sub_agents=[helper])
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("watch XYZ"))
    cancelled_before_helper: list[bool] = []

    async def on_event(event: Event) -> None:
        if event.text == "Monitoring.":
            await gate.reached.wait()
            queue.send_content(user("get me the helper"))
        elif event.author == "helper" and event.text:
            cancelled_before_helper.append(gate.cancelled)
            queue.close()

    await live.run(queue, on_event=on_event)

    assert cancelled_before_helper == [True]
    assert streaming_tasks() == []
