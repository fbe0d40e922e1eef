"""CassetteLlm: a run recorded against a real OpenAI-compatible HTTP server (the openai
SDK and a local FixtureServer) replays offline, with the same events, errors and
streamed chunks; misses explain themselves; secrets stay out of the file."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from pyadk import types
from pyadk.agents import LlmAgent, RetryPolicy, RunConfig, StreamingMode
from pyadk.errors import ModelError, ModelOverloadedError, RateLimitError
from pyadk.events import Event
from pyadk.models import BaseLlm, LlmRequest, LlmResponse, OpenAIChat
from pyadk.testing import (
    Call,
    CassetteLlm,
    CassetteMissError,
    FixtureServer,
    OpenAIWire,
    ScriptedModel,
    Stream,
    TestRunner,
    cassette_llm,
    cassette_path,
    function_call,
    json_response,
    simplify_events,
)

API_KEY = "sk-test-cassette-0123456789abcdef"
SSE = RunConfig(streaming_mode=StreamingMode.SSE)
wire = OpenAIWire()


def get_weather(city: str) -> dict[str, str]:
    """Returns the weather of a city."""
    return {"sky": "sunny" if city == "Paris" else "rainy"}


def openai_model(server: FixtureServer) -> OpenAIChat:
    return OpenAIChat(
        model="openai/fixture-model",
        base_url=f"{server.base_url}/v1",
        api_key=API_KEY,
        max_retries=0,
    )


def weather_agent(model: BaseLlm, **options: Any) -> LlmAgent:
    return LlmAgent(
        name="forecaster",
        model=model,
        instruction="Answer weather questions with the tool.",
        tools=[get_weather],
        **options,
    )


def view(events: list[Event]) -> list[dict[str, Any]]:
    """The events as JSON without what differs between runs (event ids, timestamps,
    invocation ids, the call ids pyadk generates)."""
    out = []
    for event in events:
        data = event.model_dump(
            mode="json", exclude_none=True, exclude={"id", "timestamp", "invocation_id"}
        )
        text = json.dumps(data, sort_keys=True)
        for call in event.get_function_calls() + event.get_function_responses():
            if call.id and call.id.startswith("adk-"):
                text = text.replace(call.id, "adk-generated")
        out.append(json.loads(text))
    return out


def untagged_tool_call(city: str) -> Any:
    """An OpenAI answer whose tool call has no id (as some local servers send), so
    pyadk generates one (``adk-...``) on every run."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
            }
        ],
    }
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    body = {"id": "c", "object": "chat.completion", "created": 1, "model": "fixture-model"}
    return json_response({**body, "choices": [choice]})


def read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


async def test_a_recorded_tool_run_replays_offline_with_identical_events(tmp_path: Path) -> None:
    path = tmp_path / "weather.json"
    with FixtureServer() as server:
        server.enqueue(
            wire.tool_calls([Call("get_weather", {"city": "Paris"}, id="call_1")]),
            wire.text("It is sunny in Paris."),
            wire.tool_calls_stream([Call("get_weather", {"city": "Oslo"}, id="call_2")]),
            wire.text_stream(["Oslo is ", "rainy."]),
        )
        recording = CassetteLlm(model=openai_model(server), path=path, mode="record")
        runner = TestRunner(weather_agent(recording))
        recorded = await runner.run("Weather in Paris?")
        recorded_stream = await runner.run("And in Oslo?", run_config=SSE)
        await recording.close()
        assert len(server.requests) == 4

    # The server is gone: any request that reached the network would fail.
    replaying = CassetteLlm(model=openai_model(server), path=path, mode="replay")
    runner = TestRunner(weather_agent(replaying))
    replayed = await runner.run("Weather in Paris?")
    replayed_stream = await runner.run("And in Oslo?", run_config=SSE)

    assert simplify_events(replayed) == [
        ("forecaster", "call:get_weather({'city': 'Paris'})"),
        ("forecaster", "response:get_weather({'sky': 'sunny'})"),
        ("forecaster", "It is sunny in Paris."),
    ]
    assert view(replayed) == view(recorded)
    assert [(e.partial, e.text) for e in replayed_stream[-3:]] == [
        (True, "Oslo is "),
        (True, "rainy."),
        (None, "Oslo is rainy."),
    ]
    assert replayed_stream[0].get_function_calls()[0].args == {"city": "Oslo"}
    assert view(replayed_stream) == view(recorded_stream)
    assert replaying.unplayed() == []

    # Given by name, the model is never built while replaying (no SDK client, no key).
    by_name = CassetteLlm(model="openai/fixture-model", path=path, mode="replay")
    assert view(await TestRunner(weather_agent(by_name)).run("Weather in Paris?")) == view(recorded)
    assert by_name.wrapped is None


async def test_the_file_is_readable_camel_case_json_in_order(tmp_path: Path) -> None:
    path = tmp_path / "weather.json"
    with FixtureServer() as server:
        server.enqueue(
            wire.tool_calls_stream([Call("get_weather", {"city": "Paris"}, id="call_1")]),
            wire.text_stream(["Sunny", "!"]),
        )
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        await TestRunner(weather_agent(model)).run("Weather in Paris?", run_config=SSE)
        await model.close()

    data = read(path)
    assert data["version"] == 1
    first, second = data["interactions"]
    assert set(first) == {"key", "request", "responses"}
    assert first["request"]["model"] == "openai/fixture-model"
    assert first["request"]["stream"] is True
    assert first["request"]["systemInstruction"].startswith("Answer weather questions")
    assert first["request"]["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]}
    ]
    declaration = first["request"]["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather"
    assert first["responses"][-1]["content"]["parts"][0]["functionCall"] == {
        "id": "call_1",
        "name": "get_weather",
        "args": {"city": "Paris"},
    }
    # The history of the second call ends with the tool's result.
    result = second["request"]["contents"][-1]["parts"][0]["functionResponse"]
    assert result == {"id": "call_1", "name": "get_weather", "response": {"sky": "sunny"}}
    assert [r.get("partial") for r in second["responses"]] == [True, True, None]
    assert second["responses"][-1]["usageMetadata"]["promptTokenCount"] == 11
    assert second["responses"][-1]["finishReason"] == "STOP"
    assert path.read_text(encoding="utf-8").startswith('{\n  "version": 1,\n')
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


async def test_generated_call_ids_differ_between_runs_and_still_replay(tmp_path: Path) -> None:
    path = tmp_path / "ids.json"
    with FixtureServer() as server:
        server.enqueue(untagged_tool_call("Paris"), wire.text("Sunny."))
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        recorded = await TestRunner(weather_agent(model)).run("Paris?")
        await model.close()
    recorded_id = recorded[0].get_function_calls()[0].id
    assert recorded_id is not None and recorded_id.startswith("adk-")

    second = read(path)["interactions"][1]["request"]["contents"]
    assert second[1]["parts"][0]["functionCall"]["id"] == "adk-1"
    assert second[2]["parts"][0]["functionResponse"]["id"] == "adk-1"
    assert recorded_id not in path.read_text(encoding="utf-8")

    replayed = await TestRunner(
        weather_agent(CassetteLlm(model="openai/fixture-model", path=path))
    ).run("Paris?")
    assert replayed[0].get_function_calls()[0].id != recorded_id
    assert simplify_events(replayed)[-1] == ("forecaster", "Sunny.")
    assert view(replayed) == view(recorded)


async def test_generated_ids_are_numbered_in_order_of_appearance(tmp_path: Path) -> None:
    scripted = ScriptedModel(
        [
            [
                function_call("get_weather", {"city": "Paris"}),
                function_call("get_weather", {"city": "Oslo"}),
            ],
            "Done.",
        ]
    )
    path = tmp_path / "parallel.json"
    model = CassetteLlm(model=scripted, path=path, mode="record")
    await TestRunner(weather_agent(model)).run("Paris and Oslo?")

    contents = read(path)["interactions"][1]["request"]["contents"]
    calls = [p["functionCall"]["id"] for p in contents[1]["parts"]]
    results = [
        (p["functionResponse"]["id"], p["functionResponse"]["response"])
        for p in contents[2]["parts"]
    ]
    assert calls == ["adk-1", "adk-2"]
    assert results == [("adk-1", {"sky": "sunny"}), ("adk-2", {"sky": "rainy"})]
    replayed = await TestRunner(weather_agent(CassetteLlm(model="scripted", path=path))).run(
        "Paris and Oslo?"
    )
    assert simplify_events(replayed)[-1] == ("forecaster", "Done.")


async def test_a_miss_names_the_file_the_nearest_request_and_how_to_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "weather.json"
    with FixtureServer() as server:
        server.enqueue(wire.text("Sunny."), wire.text("Rainy."))
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        await TestRunner(weather_agent(model)).run("Weather in Paris?")
        await TestRunner(weather_agent(model), session_id="s2").run("Weather in Rome?")
        await model.close()

    replaying = CassetteLlm(model="openai/fixture-model", path=path)
    with pytest.raises(CassetteMissError) as miss:
        await TestRunner(weather_agent(replaying)).run("Weather in Oslo?")
    message = str(miss.value)
    assert f"No recording left in cassette {path} for this request" in message
    assert "Nearest recorded request: interaction #1 of 2" in message
    assert (
        'contents[0].parts[0].text: recorded "Weather in Paris?", requested "Weather in Oslo?"'
        in message
    )
    assert "PYADK_CASSETTE_MODE=record" in message
    assert "PYADK_CASSETTE_MODE=auto" in message
    assert miss.value.path == path
    assert miss.value.request["contents"][-1]["parts"][0]["text"] == "Weather in Oslo?"

    # Another setting than when recorded: the differing field is named.
    hotter = weather_agent(
        CassetteLlm(model="openai/fixture-model", path=path),
        generate_content_config=types.GenerateContentConfig(temperature=0.9),
    )
    with pytest.raises(CassetteMissError, match=r"config: recorded \(absent\), requested"):
        await TestRunner(hotter).run("Weather in Paris?")

    # Recorded without streaming, asked with streaming.
    with pytest.raises(CassetteMissError, match="stream: recorded false, requested true"):
        streaming = weather_agent(CassetteLlm(model="openai/fixture-model", path=path))
        await TestRunner(streaming).run("Weather in Paris?", run_config=SSE)


async def test_a_miss_says_when_a_request_was_replayed_already_or_nothing_is_recorded(
    tmp_path: Path,
) -> None:
    path = tmp_path / "once.json"
    await TestRunner(
        LlmAgent(
            name="a", model=CassetteLlm(model=ScriptedModel(["Hi."]), path=path, mode="record")
        )
    ).run("hi")
    replaying = CassetteLlm(model="scripted", path=path)
    assert (await TestRunner(LlmAgent(name="a", model=replaying)).run("hi"))[-1].text == "Hi."
    with pytest.raises(CassetteMissError, match=r"recorded 1 time\(s\) \(interaction #1\)"):
        await TestRunner(LlmAgent(name="a", model=replaying), session_id="again").run("hi")

    missing = CassetteLlm(model="scripted", path=tmp_path / "nothing.json")
    with pytest.raises(CassetteMissError) as miss:
        await TestRunner(LlmAgent(name="a", model=missing)).run("hi")
    assert "(the file does not exist yet)" in str(miss.value)
    assert "The cassette holds no recordings." in str(miss.value)


async def test_identical_requests_replay_their_recordings_in_order(tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    recording = CassetteLlm(model=ScriptedModel(["First.", "Second."]), path=path, mode="record")
    for session in ("s1", "s2"):
        await TestRunner(LlmAgent(name="a", model=recording), session_id=session).run("hi")
    replaying = CassetteLlm(model="scripted", path=path)
    answers = [
        (await TestRunner(LlmAgent(name="a", model=replaying), session_id=s).run("hi"))[-1].text
        for s in ("s1", "s2")
    ]
    assert answers == ["First.", "Second."]
    assert len({i["key"] for i in read(path)["interactions"]}) == 1


async def test_auto_mode_appends_what_is_missing_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "weather.json"
    with FixtureServer() as server:
        server.enqueue(wire.text("Sunny in Paris."))
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        await TestRunner(weather_agent(model)).run("Weather in Paris?")
        await model.close()
        before = read(path)["interactions"]

        server.enqueue(wire.text("Rainy in Oslo."))
        auto = CassetteLlm(model=openai_model(server), path=path, mode="auto")
        paris = await TestRunner(weather_agent(auto)).run("Weather in Paris?")
        oslo = await TestRunner(weather_agent(auto), session_id="s2").run("Weather in Oslo?")
        await auto.close()
        assert len(server.requests) == 2  # Paris was replayed, only Oslo went out

    assert (paris[-1].text, oslo[-1].text) == ("Sunny in Paris.", "Rainy in Oslo.")
    after = read(path)["interactions"]
    assert after[0] == before[0]
    assert len(after) == 2
    assert after[1]["request"]["contents"][0]["parts"][0]["text"] == "Weather in Oslo?"

    # record mode writes the cassette anew: only this run's interactions remain.
    with FixtureServer() as server:
        server.enqueue(wire.text("Cloudy in Oslo."))
        again = CassetteLlm(model=openai_model(server), path=path, mode="record")
        await TestRunner(weather_agent(again)).run("Weather in Oslo?")
        await again.close()
    [only] = read(path)["interactions"]
    assert only["responses"][0]["content"]["parts"][0]["text"] == "Cloudy in Oslo."


async def test_auto_mode_records_a_repeated_request_again(tmp_path: Path) -> None:
    path = tmp_path / "repeated.json"
    scripted = ScriptedModel(["First.", "Second.", "Third."])
    auto = CassetteLlm(model=scripted, path=path, mode="auto")
    for session in ("s1", "s2"):
        await TestRunner(LlmAgent(name="a", model=auto), session_id=session).run("hi")
    assert scripted.call_count == 2  # the second identical request was not replayed
    texts = [i["responses"][0]["content"]["parts"][0]["text"] for i in read(path)["interactions"]]
    assert texts == ["First.", "Second."]

    again = CassetteLlm(model=scripted, path=path, mode="auto")
    answers = [
        (await TestRunner(LlmAgent(name="a", model=again), session_id=s).run("hi"))[-1].text
        for s in ("s1", "s2", "s3")
    ]
    assert answers == ["First.", "Second.", "Third."]
    assert scripted.call_count == 3


async def test_a_recorded_rate_limit_replays_as_rate_limit_error(tmp_path: Path) -> None:
    path = tmp_path / "limited.json"
    with FixtureServer() as server:
        server.enqueue(wire.error("rate_limit"))
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        with pytest.raises(RateLimitError) as recorded:
            await TestRunner(weather_agent(model)).run("Weather in Paris?")
        await model.close()

    [interaction] = read(path)["interactions"]
    assert interaction["responses"] == []
    error = interaction["error"]
    assert (error["type"], error["module"]) == ("RateLimitError", "pyadk.errors")
    assert (error["statusCode"], error["retryable"]) == (429, True)
    assert error.get("retryAfter") == getattr(recorded.value, "retry_after", None)
    assert "Rate limit reached" in error["message"]

    with pytest.raises(RateLimitError) as replayed:
        await TestRunner(weather_agent(CassetteLlm(model="openai/fixture-model", path=path))).run(
            "Weather in Paris?"
        )
    assert str(replayed.value) == str(recorded.value)
    assert (replayed.value.status_code, replayed.value.retryable) == (429, True)
    assert getattr(replayed.value, "retry_after", None) == getattr(
        recorded.value, "retry_after", None
    )


async def test_a_retried_rate_limit_replays_the_retry_too(tmp_path: Path) -> None:
    path = tmp_path / "retried.json"
    retry = RetryPolicy(attempts=2, initial_delay=0)
    with FixtureServer() as server:
        server.enqueue(wire.error("rate_limit"), wire.text("Sunny."))
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        recorded = await TestRunner(weather_agent(model, model_retry=retry)).run("Paris?")
        await model.close()
    interactions = read(path)["interactions"]
    assert [("error" in i, len(i["responses"])) for i in interactions] == [(True, 0), (False, 1)]
    assert interactions[0]["key"] == interactions[1]["key"]

    replaying = CassetteLlm(model="openai/fixture-model", path=path)
    replayed = await TestRunner(weather_agent(replaying, model_retry=retry)).run("Paris?")
    assert view(replayed) == view(recorded)


class _BreaksMidStream(BaseLlm):
    model: str = "flaky"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        yield LlmResponse(content=types.ModelContent("Half an "), partial=True)
        raise ModelOverloadedError("stream broke", status_code=503)


class _Custom(Exception):
    pass


async def test_errors_of_other_types_are_replayed_without_importing_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "foreign.json"
    errors: list[Exception] = [ValueError("bad value"), _Custom("odd failure")]
    recording = CassetteLlm(model=ScriptedModel(errors), path=path, mode="record")
    for error_type in (ValueError, _Custom):
        with pytest.raises(error_type):
            await TestRunner(LlmAgent(name="a", model=recording)).run("hi")
    replaying = CassetteLlm(model="scripted", path=path)
    with pytest.raises(ValueError, match=r"^bad value$"):
        await TestRunner(LlmAgent(name="a", model=replaying)).run("hi")
    # A class outside pyadk.errors and builtins is never imported: a ModelError names it.
    with pytest.raises(ModelError, match=r"test_cassette\._Custom: odd failure") as foreign:
        await TestRunner(LlmAgent(name="a", model=replaying)).run("hi")
    assert foreign.value.retryable is False


async def test_partial_responses_before_an_error_are_replayed_first(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    request = LlmRequest(model="flaky", contents=[types.UserContent("hi")])
    recording = CassetteLlm(model=_BreaksMidStream(), path=path, mode="record")
    with pytest.raises(ModelOverloadedError):
        async for _ in recording.generate_content_async(request, stream=True):
            pass
    seen: list[LlmResponse] = []
    with pytest.raises(ModelOverloadedError, match="stream broke"):
        async for response in CassetteLlm(model="flaky", path=path).generate_content_async(
            request, stream=True
        ):
            seen.append(response)
    assert [(r.partial, r.content.text if r.content else None) for r in seen] == [
        (True, "Half an ")
    ]


async def test_no_secret_reaches_the_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-9876543210")
    path = tmp_path / "secrets.json"
    with FixtureServer() as server:
        # A model that repeats what it should not: the key it was called with, a token.
        server.enqueue(wire.text(f"Your key is {API_KEY} and token tok-9876543210."))
        model = CassetteLlm(model=openai_model(server), path=path, mode="record")
        events = await TestRunner(weather_agent(model)).run("What is my key?")
        await model.close()
        assert server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert API_KEY in (events[-1].text or "")

    text = path.read_text(encoding="utf-8")
    json.loads(text)
    assert API_KEY not in text
    assert "tok-9876543210" not in text
    assert "Your key is <redacted> and token <redacted>." in text
    assert "authorization" not in text.lower()


async def test_a_normalize_hook_blanks_values_that_change_between_runs(tmp_path: Path) -> None:
    path = tmp_path / "clock.json"
    clock = ["12:00:01"]

    def stamp() -> dict[str, str]:
        """Returns the time."""
        return {"now": clock[0]}  # differs between runs

    def blank_times(request: dict[str, Any]) -> None:
        for content in request["contents"]:
            for part in content["parts"]:
                if "functionResponse" in part:
                    part["functionResponse"]["response"]["now"] = "<time>"

    def agent(model: BaseLlm) -> LlmAgent:
        return LlmAgent(name="a", model=model, tools=[stamp])

    scripted = ScriptedModel([function_call("stamp"), "It is noon."])
    recording = CassetteLlm(model=scripted, path=path, mode="record", normalize=blank_times)
    await TestRunner(agent(recording)).run("Time?")
    second = read(path)["interactions"][1]["request"]
    assert second["contents"][-1]["parts"][0]["functionResponse"]["response"] == {"now": "<time>"}

    clock[0] = "12:00:02"
    replaying = CassetteLlm(model="scripted", path=path, normalize=blank_times)
    assert (await TestRunner(agent(replaying)).run("Time?"))[-1].text == "It is noon."
    without_hook = CassetteLlm(model="scripted", path=path)
    with pytest.raises(CassetteMissError, match=r'response.now: recorded "<time>", requested "12'):
        await TestRunner(agent(without_hook)).run("Time?")


class Forecast(BaseModel):
    city: str
    sky: str


async def test_output_schemas_and_inline_data_are_keyed_as_json(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    image = types.Part.from_bytes(data=b"\x89PNG" + bytes(range(256)) * 8, mime_type="image/png")
    message = types.UserContent([image, "Forecast?"])

    def agent(model: BaseLlm) -> LlmAgent:
        return LlmAgent(name="a", model=model, output_schema=Forecast)

    answer = '{"city": "Paris", "sky": "sunny"}'
    recording = CassetteLlm(model=ScriptedModel([answer]), path=path, mode="record")
    await TestRunner(agent(recording)).run(message)
    replaying = CassetteLlm(model="scripted", path=path)
    assert (await TestRunner(agent(replaying)).run(message))[-1].text == answer

    request = read(path)["interactions"][0]["request"]
    schema = request["config"]["responseSchema"]
    assert schema["properties"]["sky"] == {"title": "Sky", "type": "string"}
    assert request["config"]["responseMimeType"] == "application/json"
    data = request["contents"][0]["parts"][0]["inlineData"]["data"]
    assert data.startswith("sha256:") and data.endswith("base64 characters)")


def test_the_mode_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYADK_CASSETTE_MODE", raising=False)
    assert CassetteLlm(model="m", path=tmp_path / "c.json").mode == "replay"
    monkeypatch.setenv("PYADK_CASSETTE_MODE", "auto")
    assert CassetteLlm(model="m", path=tmp_path / "c.json").mode == "auto"
    assert CassetteLlm(model="m", path=tmp_path / "c.json", mode="record").mode == "record"
    monkeypatch.setenv("PYADK_CASSETTE_MODE", "rewind")
    with pytest.raises(ValueError, match=r"one of replay, record, auto .*not 'rewind'"):
        CassetteLlm(model="m", path=tmp_path / "c.json")


def test_a_broken_cassette_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=f"cassette {path} is not valid JSON"):
        CassetteLlm(model="m", path=path).interactions()
    path.write_text('{"interactions": []}', encoding="utf-8")
    with pytest.raises(ValueError, match="is not a version-1 pyadk cassette"):
        CassetteLlm(model="m", path=path).interactions()


async def test_cassette_llm_names_the_file_after_the_test(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    model = cassette_llm(request, ScriptedModel(["Hi."]), directory=tmp_path, mode="record")
    expected = tmp_path / "test_cassette" / "test_cassette_llm_names_the_file_after_the_test.json"
    assert model.path == expected
    assert model.model == "scripted"
    await TestRunner(LlmAgent(name="a", model=model)).run("hi")
    assert expected.is_file()
    assert cassette_path(request, name="planner", directory=tmp_path) == expected.with_suffix(
        ".planner.json"
    )
    default = cassette_path(request)
    assert (
        default
        == request.config.rootpath / "tests" / "cassettes" / expected.parent.name / expected.name
    )


@pytest.mark.parametrize("city", ["Paris", "New York"])
def test_parametrized_tests_get_a_file_each(request: pytest.FixtureRequest, city: str) -> None:
    name = cassette_path(request, directory="c").name
    assert name == f"test_parametrized_tests_get_a_file_each_{city.replace(' ', '_')}.json"


async def test_streamed_recordings_keep_every_chunk(tmp_path: Path) -> None:
    path = tmp_path / "stream.json"
    recording = CassetteLlm(
        model=ScriptedModel([Stream(["a", "b", "c"])]), path=path, mode="record"
    )
    await TestRunner(LlmAgent(name="a", model=recording)).run("go", run_config=SSE)
    responses = read(path)["interactions"][0]["responses"]
    assert [r["content"]["parts"][0]["text"] for r in responses] == ["a", "b", "c", "abc"]
