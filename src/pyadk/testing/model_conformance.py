"""A conformance suite for model adapters: one set of tests, run against every adapter.

Each test drives the adapter's real SDK client against a :class:`FixtureServer` on
127.0.0.1 that answers in the provider's documented wire format, then checks what the
adapter returned and what it sent (the recorded request bodies). Subclass
:class:`ModelConformance` under a name pytest collects::

    from pyadk.models import OpenAIChat
    from pyadk.testing.model_conformance import ModelConformance, OpenAIWire

    class TestOpenAIChat(ModelConformance):
        wire = OpenAIWire()

        def make_model(self, base_url):
            return OpenAIChat(model="m", base_url=base_url + "/v1", api_key="k", max_retries=0)

Checks: text, streaming (partial deltas then one aggregate), single and parallel tool
calls with their results in the next request, streamed tool calls assembled, tool_config
modes, structured output, usage, typed errors (with the wait a rate limit's
``Retry-After`` asks for), unpaired tool calls, reasoning kept and sent back, and a full
agent turn through the Runner.

The tests carry pytest-asyncio's ``asyncio`` mark (and the async fixture is a
``pytest_asyncio.fixture``), so the suite runs in pytest-asyncio's strict mode, its
default, as well as in auto mode.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

try:
    from pytest_asyncio import fixture as _async_fixture
except ImportError:  # the wires work without it; the suite's tests need pytest-asyncio
    _async_fixture = pytest.fixture  # type: ignore[assignment]

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig, StreamingMode
from pyadk.errors import BadRequestError, ModelError, ModelOverloadedError, RateLimitError
from pyadk.models import BaseLlm, LlmRequest, LlmResponse
from pyadk.models._history import PLACEHOLDER_RESPONSE
from pyadk.testing._model_wires import OUTPUT_TOKENS, PROMPT_TOKENS, Call, SentResult, Wire
from pyadk.testing._wire_anthropic import AnthropicWire
from pyadk.testing._wire_gemini import GeminiWire
from pyadk.testing._wire_openai import OpenAIWire
from pyadk.testing.fixture_server import FixtureServer
from pyadk.testing.test_runner import TestRunner
from pyadk.tools import FunctionTool

__all__ = [
    "AnthropicWire",
    "Call",
    "GeminiWire",
    "ModelConformance",
    "OpenAIWire",
    "SentResult",
    "Wire",
    "generate",
]


def get_weather(city: str) -> dict[str, str]:
    """Returns the current weather of a city."""
    return {"sky": "sunny" if city == "Paris" else "rainy"}


def get_time(zone: str) -> dict[str, str]:
    """Returns the local time in a time zone."""
    return {"time": "12:00"}


class Forecast(BaseModel):
    city: str
    temperature_c: float


async def generate(model: BaseLlm, request: LlmRequest, stream: bool = False) -> list[LlmResponse]:
    """Every response the model yields for ``request``."""
    return [r async for r in model.generate_content_async(request, stream=stream)]


def _request(*contents: types.Content | str, system: str | None = None) -> LlmRequest:
    request = LlmRequest(
        contents=[types.UserContent(c) if isinstance(c, str) else c for c in contents]
    )
    if system:
        request.append_instructions([system])
    return request


def _with_tools(request: LlmRequest, *functions: Any) -> LlmRequest:
    request.append_tools([FunctionTool(f) for f in functions])
    return request


def _calls(response: LlmResponse) -> list[types.FunctionCall]:
    assert response.content is not None
    return [p.function_call for p in response.content.parts or [] if p.function_call]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ModelConformance:
    """Every adapter conformance test; subclasses set :attr:`wire` and :meth:`make_model`."""

    wire: ClassVar[Wire]

    def make_model(self, base_url: str) -> BaseLlm:
        """The adapter under test, talking to ``base_url`` (no SDK retries, please)."""
        raise NotImplementedError

    @pytest.fixture
    def server(self) -> Iterator[FixtureServer]:
        with FixtureServer() as server:
            yield server

    @_async_fixture
    async def model(self, server: FixtureServer) -> AsyncIterator[BaseLlm]:
        model = self.make_model(server.base_url)
        yield model
        await model.close()

    def _ids(self, *ids: str) -> list[str | None]:
        return list(ids) if self.wire.call_ids else [None] * len(ids)

    def _body(self, server: FixtureServer, index: int = -1) -> dict[str, Any]:
        body = server.requests[index].json()
        assert isinstance(body, dict)
        return body

    # --- text and streaming -------------------------------------------------------------

    @pytest.mark.asyncio
    async def test_text_answer_with_usage_and_system_instruction(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        server.enqueue(self.wire.text("Hello there."))
        responses = await generate(model, _request("Say hello.", system="You are terse."))
        assert len(responses) == 1
        (answer,) = responses
        assert not answer.partial and answer.error_code is None
        assert answer.content is not None and answer.content.role == "model"
        assert answer.content.text == "Hello there."
        assert answer.finish_reason == types.FinishReason.STOP
        usage = answer.usage_metadata
        assert usage is not None
        assert (usage.prompt_token_count, usage.candidates_token_count) == (
            PROMPT_TOKENS,
            OUTPUT_TOKENS,
        )
        assert usage.total_token_count == PROMPT_TOKENS + OUTPUT_TOKENS
        body = self._body(server)
        assert self.wire.system_text(body) == "You are terse."
        assert self.wire.user_texts(body) == ["Say hello."]

    @pytest.mark.asyncio
    async def test_stream_yields_text_deltas_then_one_aggregate(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        server.enqueue(self.wire.text_stream(["Hel", "lo, ", "world\n", "!"]))
        responses = await generate(model, _request("Greet me."), stream=True)
        *partials, final = responses
        assert [r.content.text for r in partials if r.content] == ["Hel", "lo, ", "world\n", "!"]
        assert all(r.partial for r in partials)
        assert not final.partial and final.turn_complete
        assert final.content is not None and final.content.text == "Hello, world\n!"
        assert final.finish_reason == types.FinishReason.STOP
        assert final.usage_metadata is not None
        assert final.usage_metadata.prompt_token_count == PROMPT_TOKENS
        assert final.usage_metadata.candidates_token_count == OUTPUT_TOKENS

    @pytest.mark.asyncio
    async def test_empty_history_still_sends_a_user_turn(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        server.enqueue(self.wire.text("ok"))
        await generate(model, _request(system="Summarise the state."))
        assert len(self.wire.user_texts(self._body(server))) == 1

    # --- tool calls -----------------------------------------------------------------------

    @pytest.mark.asyncio
    async def test_single_tool_call_and_its_declaration(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        call_id = self._ids("call_w1")[0]
        server.enqueue(self.wire.tool_calls([Call("get_weather", {"city": "Paris"}, call_id)]))
        request = _with_tools(_request("Weather in Paris?"), get_weather)
        (answer,) = await generate(model, request)
        (call,) = _calls(answer)
        assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
        if self.wire.call_ids:
            assert call.id == "call_w1"
        schema = self.wire.tool_schemas(self._body(server))["get_weather"]
        assert schema["properties"]["city"]["type"] == "string"
        assert schema["required"] == ["city"]

    @pytest.mark.asyncio
    async def test_parallel_tool_calls_and_their_results_in_the_next_request(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        ids = self._ids("call_p", "call_r")
        calls = [
            Call("get_weather", {"city": "Paris"}, ids[0]),
            Call("get_weather", {"city": "Rome"}, ids[1]),
        ]
        server.enqueue(
            self.wire.tool_calls(calls), self.wire.text("Sunny in Paris, rainy in Rome.")
        )
        first = _with_tools(_request("Weather in Paris and Rome?"), get_weather)
        (answer,) = await generate(model, first)
        made = _calls(answer)
        assert [(c.name, c.args) for c in made] == [(c.name, c.args) for c in calls]
        results = types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id=c.id or f"adk-{i}", name=c.name, response=get_weather(**(c.args or {}))
                    )
                )
                for i, c in enumerate(made)
            ],
        )
        assert answer.content is not None
        history = _request("Weather in Paris and Rome?", answer.content, results)
        second = _with_tools(history, get_weather)
        (final,) = await generate(model, second)
        assert final.content is not None and final.content.text == "Sunny in Paris, rainy in Rome."
        body = self._body(server)
        assert [(c.name, c.args) for c in self.wire.sent_calls(body)] == [
            (c.name, c.args) for c in calls
        ]
        sent = self.wire.sent_results(body)
        assert [r.response for r in sent] == [{"sky": "sunny"}, {"sky": "rainy"}]
        if self.wire.call_ids:
            assert [r.id for r in sent] == ids
            assert [c.id for c in self.wire.sent_calls(body)] == ids

    @pytest.mark.asyncio
    async def test_streamed_tool_calls_are_assembled(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        ids = self._ids("call_s1", "call_s2")
        calls = [
            Call("get_weather", {"city": "Paris"}, ids[0]),
            Call("get_time", {"zone": "CET"}, ids[1]),
        ]
        server.enqueue(self.wire.tool_calls_stream(calls, text="Checking both."))
        request = _with_tools(_request("Weather and time?"), get_weather, get_time)
        *partials, final = await generate(model, request, stream=True)
        assert partials and all(r.partial for r in partials)
        assert not any(_calls(r) for r in partials), "partial chunks must not carry tool calls"
        assert "".join(r.content.text or "" for r in partials if r.content) == "Checking both."
        assert not final.partial and final.content is not None
        assert final.content.text == "Checking both."
        assert [(c.name, c.args) for c in _calls(final)] == [(c.name, c.args) for c in calls]
        if self.wire.call_ids:
            assert [c.id for c in _calls(final)] == ids

    @pytest.mark.asyncio
    @pytest.mark.parametrize(
        ("mode", "allowed", "expected"),
        [
            ("ANY", ["get_time"], ("any", ["get_time"])),
            ("ANY", None, ("any", None)),
            ("NONE", None, ("none", None)),
            ("AUTO", None, ("auto", None)),
        ],
    )
    async def test_tool_config_modes(
        self,
        server: FixtureServer,
        model: BaseLlm,
        mode: str,
        allowed: list[str] | None,
        expected: tuple[str, list[str] | None],
    ) -> None:
        server.enqueue(self.wire.text("ok"))
        request = _with_tools(_request("What now?"), get_weather, get_time)
        request.config.tool_config = types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=types.FunctionCallingConfigMode(mode), allowed_function_names=allowed
            )
        )
        await generate(model, request)
        choice, names = self.wire.tool_choice(self._body(server))
        if expected == ("any", None) and names is not None:
            assert sorted(names) == ["get_time", "get_weather"]  # "any of the declared tools"
            names = None
        assert (choice, names) == expected

    @pytest.mark.asyncio
    async def test_unanswered_and_orphan_tool_results_keep_the_request_valid(
        self, server: FixtureServer, model: BaseLlm
    ) -> None:
        if not self.wire.pairs_tool_results:
            pytest.skip(f"the {self.wire.name} API does not require paired tool results")
        server.enqueue(self.wire.text("ok"))
        dangling = types.ModelContent(
            [
                types.Part(
                    function_call=types.FunctionCall(
                        id="call_9", name="get_weather", args={"city": "Oslo"}
                    )
                )
            ]
        )
        orphan = types.Part(
            function_response=types.FunctionResponse(
                id="call_x", name="get_time", response={"time": "9"}
            )
        )
        request = _with_tools(
            _request("Weather?", dangling, types.UserContent([orphan, "Never mind."])), get_weather
        )
        await generate(model, request)
        body = self._body(server)
        assert [c.id for c in self.wire.sent_calls(body)] == ["call_9"]
        assert self.wire.sent_results(body) == [SentResult("call_9", None, PLACEHOLDER_RESPONSE)]
        texts = self.wire.user_texts(body)
        assert any('Tool `get_time` returned: {"time": "9"}' in t for t in texts)
        assert any("Never mind." in t for t in texts)

    # --- structured output ------------------------------------------------------------------

    @pytest.mark.asyncio
    async def test_structured_output(self, server: FixtureServer, model: BaseLlm) -> None:
        server.enqueue(self.wire.text('{"city": "Paris", "temperature_c": 21.5}'))
        request = _request("Forecast for Paris as JSON.")
        request.set_output_schema(Forecast)
        (answer,) = await generate(model, request)
        assert answer.content is not None and answer.content.text is not None
        assert Forecast.model_validate_json(answer.content.text) == Forecast(
            city="Paris", temperature_c=21.5
        )
        schema = self.wire.response_schema(self._body(server))
        assert schema is not None
        assert set(schema["properties"]) == {"city", "temperature_c"}
        assert schema["properties"]["temperature_c"]["type"] == "number"

    # --- errors -------------------------------------------------------------------------------

    @pytest.mark.asyncio
    @pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
    @pytest.mark.parametrize(
        ("kind", "error_type", "retryable"),
        [
            ("rate_limit", RateLimitError, True),
            ("overloaded", ModelOverloadedError, True),
            ("bad_request", BadRequestError, False),
        ],
    )
    async def test_http_errors_are_typed(
        self,
        server: FixtureServer,
        model: BaseLlm,
        kind: str,
        error_type: type[Exception],
        retryable: bool,
        stream: bool,
    ) -> None:
        server.enqueue(self.wire.error(kind))
        with pytest.raises(error_type) as raised:
            await generate(model, _request("hi"), stream=stream)
        status = {"rate_limit": 429, "overloaded": self.wire.overloaded_status, "bad_request": 400}
        assert raised.value.status_code == status[kind]  # type: ignore[attr-defined]
        assert raised.value.retryable is retryable  # type: ignore[attr-defined]
        assert len(server.requests) == 1, "the adapter must not retry on its own here"

    @pytest.mark.asyncio
    @pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
    @pytest.mark.parametrize("kind", ["rate_limit", "overloaded", "bad_request"])
    async def test_errors_carry_the_wait_the_provider_asked_for(
        self, server: FixtureServer, model: BaseLlm, kind: str, stream: bool
    ) -> None:
        server.enqueue(self.wire.error(kind))
        with pytest.raises(ModelError) as raised:
            await generate(model, _request("hi"), stream=stream)
        expected = self.wire.rate_limit_retry_after if kind == "rate_limit" else None
        if expected is None:
            assert raised.value.retry_after is None
        else:
            assert raised.value.retry_after == pytest.approx(expected), (
                "the error's retry_after must be what the Retry-After headers ask for"
            )

    @pytest.mark.asyncio
    async def test_unreachable_server_is_a_retryable_error(self) -> None:
        model = self.make_model(f"http://127.0.0.1:{_closed_port()}")
        with pytest.raises(ModelOverloadedError) as raised:
            await generate(model, _request("hi"))
        assert raised.value.retryable
        await model.close()

    # --- provider-opaque reasoning ----------------------------------------------------------

    @pytest.mark.asyncio
    @pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
    async def test_reasoning_is_kept_and_sent_back(
        self, server: FixtureServer, model: BaseLlm, stream: bool
    ) -> None:
        if not self.wire.returns_reasoning:
            pytest.skip(f"the {self.wire.name} wire has no reasoning to send back")
        call = Call("get_weather", {"city": "Paris"}, self._ids("call_t")[0])
        server.enqueue(self.wire.reasoning("The user wants the weather.", call, stream=stream))
        server.enqueue(self.wire.text("Sunny."))
        request = _with_tools(_request("Weather in Paris?"), get_weather)
        *partials, answer = await generate(model, request, stream=stream)
        assert answer.content is not None
        thoughts = [p for p in answer.content.parts or [] if p.thought]
        assert [p.text for p in thoughts] == ["The user wants the weather."]
        assert answer.content.text is None, "thoughts are not answer text"
        if self.wire.reasoning_signature is not None:
            assert any(p.thought_signature for p in answer.content.parts or [])
        if stream:
            assert all(p.partial and p.content and p.content.parts[0].thought for p in partials)  # type: ignore[index]
        (made,) = _calls(answer)
        result = types.Part(
            function_response=types.FunctionResponse(
                id=made.id or "adk-1", name=made.name, response={"sky": "sunny"}
            )
        )
        history = _request("Weather in Paris?", answer.content, types.UserContent([result]))
        await generate(model, _with_tools(history, get_weather))
        sent = self.wire.sent_reasoning(self._body(server))
        assert sent == [self.wire.reasoning_signature or "The user wants the weather."]

    # --- through an agent -------------------------------------------------------------------

    @pytest.mark.asyncio
    @pytest.mark.parametrize("streaming", [False, True], ids=["call", "stream"])
    async def test_agent_turn_with_a_tool(
        self, server: FixtureServer, model: BaseLlm, streaming: bool
    ) -> None:
        call_id = self._ids("call_a1")[0]
        call = Call("get_weather", {"city": "Paris"}, call_id)
        if streaming:
            server.enqueue(
                self.wire.tool_calls_stream([call]), self.wire.text_stream(["Sunny ", "in Paris."])
            )
        else:
            server.enqueue(self.wire.tool_calls([call]), self.wire.text("Sunny in Paris."))
        agent = LlmAgent(
            name="forecaster", model=model, instruction="Answer briefly.", tools=[get_weather]
        )
        mode = StreamingMode.SSE if streaming else StreamingMode.NONE
        events = await TestRunner(agent).run(
            "Weather in Paris?", run_config=RunConfig(streaming_mode=mode)
        )
        final = [e for e in events if not e.partial]
        assert [bool(e.get_function_calls()) for e in final] == [True, False, False]
        assert final[1].get_function_responses()[0].response == {"sky": "sunny"}
        assert final[2].content is not None and final[2].content.text == "Sunny in Paris."
        body = self._body(server)
        assert self.wire.system_text(body).startswith("Answer briefly.")
        (sent,) = self.wire.sent_results(body)
        assert sent.response == {"sky": "sunny"}
        if self.wire.call_ids:
            assert sent.id == "call_a1"
