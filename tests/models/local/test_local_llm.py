"""LocalLlm over a scripted runtime: streaming, retries, errors, and a real agent flow."""

from __future__ import annotations

import asyncio
import threading

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.errors import BadRequestError
from pyadk.models import LlmRequest
from pyadk.models.local import LocalLlm
from pyadk.models.local import local_llm as local_llm_module
from pyadk.models.local._runtime import Completion, Constraint, Sampling
from pyadk.testing import TestRunner, simplify_events


class FakeRuntime:
    """Replies in order, streaming each reply in chunks; records every call."""

    backend = "fake"

    def __init__(self, replies: list[str | Exception], chunk: int = 4) -> None:
        self.replies = list(replies)
        self.chunk = chunk
        self.calls: list[tuple[str, Sampling, Constraint]] = []
        self.stopped_after: int | None = None
        self.thread_ids: set[int] = set()

    def complete(self, prompt, sampling, constraint, on_text):
        self.calls.append((prompt, sampling, constraint))
        self.thread_ids.add(threading.get_ident())
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if on_text is not None:
            for start in range(0, len(reply), self.chunk):
                if on_text(reply[start : start + self.chunk]):
                    self.stopped_after = start + self.chunk
                    return Completion(reply[: start + self.chunk], 10, 1)
        return Completion(reply, prompt_tokens=10, completion_tokens=len(reply) // 4)


@pytest.fixture
def install(monkeypatch):
    def install(llm: LocalLlm, replies: list[str | Exception], chunk: int = 4) -> FakeRuntime:
        runtime = FakeRuntime(replies, chunk)
        monkeypatch.setitem(local_llm_module._RUNTIMES, llm._settings(), runtime)
        return runtime

    return install


def _weather_request(*contents: types.Content, mode: str | None = None) -> LlmRequest:
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="weather",
                description="Weather of a city.",
                parameters=types.Schema(
                    type="OBJECT", properties={"city": types.Schema(type="STRING")}
                ),
            )
        ]
    )
    config = types.GenerateContentConfig(tools=[tool])
    if mode:
        config.tool_config = types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=mode)
        )
    return LlmRequest(contents=list(contents or [types.UserContent("Paris?")]), config=config)


async def _collect(llm: LocalLlm, request: LlmRequest, stream: bool):
    return [r async for r in llm.generate_content_async(request, stream=stream)]


async def test_streaming_text_yields_partials_then_the_aggregate(install):
    llm = LocalLlm()
    runtime = install(llm, ["It is sunny in Paris."])
    responses = await _collect(llm, _weather_request(), stream=True)
    partials, final = responses[:-1], responses[-1]
    assert all(r.partial for r in partials) and len(partials) == 6
    assert "".join(r.content.text for r in partials) == "It is sunny in Paris."
    assert not final.partial and final.content.text == "It is sunny in Paris."
    assert final.usage_metadata.prompt_token_count == 10
    assert threading.get_ident() not in runtime.thread_ids  # generation runs off the loop


async def test_a_streamed_call_has_no_partials(install):
    llm = LocalLlm()
    install(llm, ['{"name": "weather", "arguments": {"city": "Paris"}}'])
    responses = await _collect(llm, _weather_request(), stream=True)
    assert len(responses) == 1
    assert responses[0].content.parts[0].function_call.args == {"city": "Paris"}


async def test_request_settings_reach_the_runtime(install):
    llm = LocalLlm(max_output_tokens=99)
    runtime = install(llm, ["a", "b"])
    request = _weather_request()
    await _collect(llm, request, stream=False)
    request.config.temperature = 0.7
    request.config.max_output_tokens = 5
    request.config.stop_sequences = ["END"]
    await _collect(llm, request, stream=False)
    first, second = runtime.calls[0][1], runtime.calls[1][1]
    assert (first.temperature, first.max_tokens) == (0.0, 99)
    assert (second.temperature, second.max_tokens) == (0.7, 5)
    assert second.stop == ("<|im_end|>", "<|endoftext|>", "END")
    assert runtime.calls[0][0].endswith(
        "<|im_start|>user\nParis?<|im_end|>\n<|im_start|>assistant\n"
    )


def _after_call(args: dict) -> list[types.Content]:
    return [
        types.UserContent("Paris?"),
        types.ModelContent([types.Part.from_function_call(name="weather", args=args)]),
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="weather", response={"t": 21})],
        ),
    ]


async def test_repeating_the_answered_call_regenerates_without_that_tool(install):
    llm = LocalLlm()
    repeat = '{"name": "weather", "arguments": {"city": "Paris"}}'
    runtime = install(llm, [repeat, '{"t": 21}'])
    responses = await _collect(llm, _weather_request(*_after_call({"city": "Paris"})), False)
    assert [r.content.text for r in responses] == ['{"t": 21}']
    (first_prompt, _, first), (second_prompt, _, second) = runtime.calls
    assert first.json_schema is not None and first.json_text
    assert second == Constraint(text_guard=True, json_text=True)
    assert second_prompt == first_prompt  # same prompt: the runtime's cache is reused
    assert first_prompt.endswith("<|im_start|>assistant\n" + repeat + "\n")


async def test_a_repeated_call_is_answered_not_swapped_for_another_tool(install):
    # With a second tool, the retry must not let the model (committed to '{"name": ')
    # call the other tool instead: it ping-ponged between the two until the call limit.
    llm = LocalLlm()
    request = _weather_request(*_after_call({"city": "Paris"}))
    request.config.tools.append(
        types.Tool(function_declarations=[types.FunctionDeclaration(name="add")])
    )
    repeat = '{"name": "weather", "arguments": {"city": "Paris"}}'
    runtime = install(llm, [repeat, "It is 21 degrees in Paris."])
    responses = await _collect(llm, request, False)
    assert [r.content.text for r in responses] == ["It is 21 degrees in Paris."]
    (_, _, first), (_, _, second) = runtime.calls
    assert len(first.json_schema["anyOf"]) == 2
    assert second == Constraint(text_guard=True, json_text=True)


async def test_a_streamed_retry_streams_the_answer(install):
    llm = LocalLlm()
    repeat = '{"name": "weather", "arguments": {"city": "Paris"}}'
    install(llm, [repeat, "Sunny, 21 C."])
    responses = await _collect(llm, _weather_request(*_after_call({"city": "Paris"})), True)
    partials, final = responses[:-1], responses[-1]
    assert "".join(r.content.text for r in partials) == "Sunny, 21 C." == final.content.text
    assert all(r.partial for r in partials) and not final.partial


async def test_a_new_call_after_a_result_is_kept(install):
    llm = LocalLlm()
    runtime = install(llm, ['{"name": "weather", "arguments": {"city": "Rome"}}'])
    responses = await _collect(llm, _weather_request(*_after_call({"city": "Paris"})), False)
    assert responses[0].content.parts[0].function_call.args == {"city": "Rome"}
    assert len(runtime.calls) == 1


async def test_a_forced_call_is_not_regenerated(install):
    llm = LocalLlm()
    repeat = '{"name": "weather", "arguments": {"city": "Paris"}}'
    runtime = install(llm, [repeat])
    request = _weather_request(*_after_call({"city": "Paris"}), mode="ANY")
    responses = await _collect(llm, request, False)
    assert responses[0].content.parts[0].function_call.name == "weather"
    assert len(runtime.calls) == 1 and runtime.calls[0][2].allow_text is False


class GatedRuntime(FakeRuntime):
    """Streams one delta, waits until the test opens the gate, then goes on."""

    def __init__(self) -> None:
        super().__init__(["x" * 50], chunk=1)
        self.gate = threading.Event()

    def complete(self, prompt, sampling, constraint, on_text):
        sent = 0
        for sent in range(1, 51):
            if on_text("x"):
                self.stopped_after = sent
                break
            if sent == 1:
                self.gate.wait(timeout=30)
        return Completion("x" * sent, 10, sent)


async def test_closing_the_stream_stops_generation(monkeypatch):
    llm = LocalLlm()
    runtime = GatedRuntime()
    monkeypatch.setitem(local_llm_module._RUNTIMES, llm._settings(), runtime)
    stream = llm.generate_content_async(_weather_request(), stream=True)
    first = await anext(stream)
    assert first.partial and first.content.text == "x"
    await stream.aclose()
    runtime.gate.set()
    for _ in range(500):  # wait for the worker thread to finish (bounded)
        if runtime.stopped_after is not None:
            break
        await asyncio.sleep(0.01)
    # Generation stopped right after the close (at the first or second delta, depending on
    # when the worker thread saw it), not at the end of the 50 deltas.
    assert runtime.stopped_after in (1, 2)


async def test_runtime_errors_propagate(install):
    llm = LocalLlm()
    install(llm, [BadRequestError("Local model error: too long", status_code=400)])
    with pytest.raises(BadRequestError, match="too long"):
        await _collect(llm, _weather_request(), stream=True)


def _weather(city: str) -> dict:
    """Returns the weather of a city."""
    return {"city": city, "sky": "sunny"}


async def test_an_agent_calls_its_tool_and_answers(install):
    llm = LocalLlm()
    runtime = install(
        llm,
        ['{"name": "_weather", "arguments": {"city": "Paris"}}', "Sunny in Paris."],
    )
    agent = LlmAgent(name="helper", model=llm, instruction="Be brief.", tools=[_weather])
    events = await TestRunner(agent).run("Weather in Paris?")
    assert simplify_events(events) == [
        ("helper", "call:_weather({'city': 'Paris'})"),
        ("helper", "response:_weather({'city': 'Paris', 'sky': 'sunny'})"),
        ("helper", "Sunny in Paris."),
    ]
    second_prompt = runtime.calls[1][0]
    assert '<tool_response>\n{"city": "Paris", "sky": "sunny"}\n</tool_response>' in second_prompt
    assert second_prompt.startswith("<|im_start|>system\nBe brief.")
