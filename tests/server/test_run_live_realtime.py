"""WebSocket /run_live in live mode (``Runner.run_live``, as google-adk's route) for
agents whose model has a live connection, against a real uvicorn server on 127.0.0.1,
driven by the `websockets` client. The text-turn mode is tested in test_run_live.py."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from server_support import LiveServer
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import LlmResponse
from pyadk.server import create_app, live_realtime
from pyadk.testing import ScriptedLiveModel, Stream, function_call
from pyadk.tools.tool_context import ToolContext

TIMEOUT = 20  # seconds; a guard against a hung test, not a timing assertion


def text_request(text: str) -> str:
    return json.dumps({"content": {"role": "user", "parts": [{"text": text}]}})


def start(serve: Callable[[Any], LiveServer], agent: LlmAgent) -> LiveServer:
    """Serves ``agent`` as app "voice", with session s1 of alice."""
    server = serve(create_app(agents={"voice": agent}))
    with server.client() as client:
        assert client.post("/apps/voice/users/alice/sessions/s1").status_code == 200
    return server


@contextmanager
def live(server: LiveServer, query: str = "&modalities=TEXT") -> Iterator[ClientConnection]:
    url = f"ws://127.0.0.1:{server.port}/run_live?app_name=voice&user_id=alice&session_id=s1"
    with connect(url + query, open_timeout=TIMEOUT) as ws:
        yield ws


def recv(ws: ClientConnection) -> dict[str, Any]:
    message = ws.recv(timeout=TIMEOUT)
    assert isinstance(message, str)
    data: dict[str, Any] = json.loads(message)
    return data


def recv_turn(ws: ClientConnection) -> list[dict[str, Any]]:
    """The events up to the model's ``turnComplete`` (or an error)."""
    messages = [recv(ws)]
    while not (messages[-1].get("turnComplete") or "error" in messages[-1]):
        messages.append(recv(ws))
    return messages


def closed_with(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        while True:  # events sent before the close are skipped
            ws.recv(timeout=TIMEOUT)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def stored_events(server: LiveServer) -> list[dict[str, Any]]:
    with server.client() as client:
        events: list[dict[str, Any]] = client.get("/apps/voice/users/alice/sessions/s1").json()[
            "events"
        ]
    return events


def texts(events: list[dict[str, Any]]) -> list[str]:
    return [
        part["text"]
        for e in events
        for part in e.get("content", {}).get("parts", [])
        if "text" in part
    ]


def send_unless_closed(ws: ClientConnection, message: str) -> None:
    """Sends ``message``; nothing if the server already closed the connection (the
    messages it sent before can still be received)."""
    try:
        ws.send(message)
    except ConnectionClosed:
        pass


def try_turn(server: LiveServer, text: str) -> list[dict[str, Any]] | None:
    """One turn on a new connection, closed after it; None if the run failed."""
    try:
        with live(server) as ws:
            ws.send(text_request(text))
            turn = recv_turn(ws)
            if "error" in turn[-1]:
                return None
            ws.send(json.dumps({"close": True}))
            closed_with(ws)
            return turn
    except ConnectionClosed:  # refused before the text was sent
        return None


def test_a_live_model_answers_text_over_the_socket(serve: Callable[[Any], LiveServer]) -> None:
    model = ScriptedLiveModel([Stream(["Hel", "lo!"]), "Goodbye."])
    server = start(serve, LlmAgent(name="voice", model=model, instruction="Be brief."))

    with live(server) as ws:
        ws.send(text_request("hi"))
        first = recv_turn(ws)
        ws.send(text_request("bye"))
        second = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws) == (1000, "")

    assert [(e.get("partial", False), e["content"]["parts"][0]["text"]) for e in first[:-1]] == [
        (True, "Hel"),
        (True, "lo!"),
        (False, "Hello!"),
    ]
    assert first[-1]["turnComplete"] is True and "content" not in first[-1]
    assert {e["author"] for e in first} == {"voice"}
    assert len({e["invocationId"] for e in first + second}) == 1  # one live run
    assert texts(second) == ["Goodbye."]
    # one connection, opened with the route's RunConfig and the agent's instruction
    assert len(model.connections) == 1 and model.connections[0].closed
    config = model.requests[0].live_connect_config
    assert config is not None and config.response_modalities == [types.Modality.TEXT]
    assert "Be brief." in str(config.system_instruction)
    stored = stored_events(server)
    assert [(e["author"], texts([e])) for e in stored if "content" in e] == [
        ("user", ["hi"]),
        ("voice", ["Hello!"]),
        ("user", ["bye"]),
        ("voice", ["Goodbye."]),
    ]


def test_a_tool_call_runs_and_its_result_goes_back_to_the_model(
    serve: Callable[[Any], LiveServer],
) -> None:
    def book_table(time: str, tool_context: ToolContext) -> dict[str, str]:
        """Books a table."""
        tool_context.state["booking"] = time
        return {"status": "booked", "time": time}

    model = ScriptedLiveModel([function_call("book_table", {"time": "19:00"}), "Booked for 19:00."])
    server = start(serve, LlmAgent(name="voice", model=model, tools=[book_table]))

    with live(server) as ws:
        ws.send(text_request("a table at seven"))
        call_turn = recv_turn(ws)
        answer_turn = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws)[0] == 1000

    call, result = call_turn[0], call_turn[1]
    assert call["content"]["parts"][0]["functionCall"]["name"] == "book_table"
    assert call["content"]["parts"][0]["functionCall"]["args"] == {"time": "19:00"}
    response = result["content"]["parts"][0]["functionResponse"]
    assert response["response"] == {"status": "booked", "time": "19:00"}
    assert result["actions"]["stateDelta"] == {"booking": "19:00"}
    assert texts(answer_turn) == ["Booked for 19:00."]
    sent = model.connections[0].sent[-1]
    assert isinstance(sent, types.Content) and sent.parts is not None
    assert sent.parts[0].function_response is not None
    with server.client() as client:
        state = client.get("/apps/voice/users/alice/sessions/s1").json()["state"]
    assert state["booking"] == "19:00"


def test_audio_blobs_and_activity_signals_reach_the_model_and_audio_comes_back(
    serve: Callable[[Any], LiveServer],
) -> None:
    speech = types.Blob(mime_type="audio/pcm;rate=24000", data=b"\x00\x01\x02")
    heard = types.Transcription(text="what time is it", finished=True)
    model = ScriptedLiveModel(
        [
            [
                LlmResponse(input_transcription=heard),
                LlmResponse(
                    content=types.Content(role="model", parts=[types.Part(inline_data=speech)])
                ),
                LlmResponse(turn_complete=True),
            ]
        ]
    )
    server = start(serve, LlmAgent(name="voice", model=model))
    chunk = b"\x10\x20\x30\x40"

    with live(server, query="") as ws:  # no modalities: AUDIO, as google-adk
        ws.send(json.dumps({"activity_start": {}}))  # google-adk's clients: snake_case
        ws.send(
            json.dumps(
                {
                    "blob": {
                        "mime_type": "audio/pcm;rate=16000",
                        "data": base64.b64encode(chunk).decode(),
                    }
                }
            )
        )
        ws.send(json.dumps({"activityEnd": {}}))  # camelCase works too
        turn = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws)[0] == 1000

    sent = model.connections[0].sent
    assert [type(item).__name__ for item in sent] == ["ActivityStart", "Blob", "ActivityEnd"]
    blob = sent[1]
    assert isinstance(blob, types.Blob)
    assert (blob.mime_type, blob.data) == ("audio/pcm;rate=16000", chunk)
    config = model.requests[0].live_connect_config
    assert config is not None and config.response_modalities == [types.Modality.AUDIO]
    assert turn[0]["author"] == "user"
    assert turn[0]["inputTranscription"] == {"text": "what time is it", "finished": True}
    audio = turn[1]["content"]["parts"][0]["inlineData"]
    assert audio["mimeType"] == "audio/pcm;rate=24000"
    assert base64.urlsafe_b64decode(audio["data"]) == speech.data
    stored = stored_events(server)
    assert not any("inlineData" in json.dumps(e) for e in stored)  # audio is not stored


def test_query_parameters_configure_the_live_connection(
    serve: Callable[[Any], LiveServer],
) -> None:
    model = ScriptedLiveModel(["ok"])
    server = start(serve, LlmAgent(name="voice", model=model))
    query = (
        "&modalities=text&proactive_audio=true&enable_affective_dialog=1"
        "&enable_session_resumption=false&explicit_vad_signal=on"
    )

    with live(server, query) as ws:
        ws.send(text_request("hi"))
        assert texts(recv_turn(ws)) == ["ok"]
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws)[0] == 1000

    config = model.requests[0].live_connect_config
    assert config is not None
    assert config.response_modalities == [types.Modality.TEXT]
    assert config.proactivity == types.ProactivityConfig(proactive_audio=True)
    assert config.enable_affective_dialog is True
    assert config.session_resumption == types.SessionResumptionConfig(transparent=False)
    assert config.explicit_vad_signal is True


def test_close_ends_the_run_and_the_next_connection_continues_the_session(
    serve: Callable[[Any], LiveServer],
) -> None:
    model = ScriptedLiveModel(["First answer.", "Second answer."])
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server) as ws:
        ws.send(text_request("one"))
        recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        ws.send(text_request("ignored: the run is closing"))
        assert closed_with(ws) == (1000, "")
    assert model.connections[0].closed
    with live(server) as ws:
        ws.send(text_request("two"))
        second = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    assert texts(second) == ["Second answer."]
    history = model.connections[1].history or []
    assert [(c.role, c.parts[0].text) for c in history if c.parts] == [
        ("user", "one"),
        ("model", "First answer."),
    ]
    assert [texts([e]) for e in stored_events(server) if e["author"] == "user"] == [
        ["one"],
        ["two"],
    ]


def test_a_disconnected_client_frees_the_session_even_mid_tool(
    serve: Callable[[Any], LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_realtime, "DISCONNECT_GRACE_SECONDS", 0.2)
    gate = threading.Event()

    async def slow_lookup(topic: str) -> dict[str, str]:
        """Waits for the test."""
        await asyncio.to_thread(gate.wait, 30)
        return {"topic": topic}

    model = ScriptedLiveModel([function_call("slow_lookup", {"topic": "tea"}), "Back again."])
    server = start(serve, LlmAgent(name="voice", model=model, tools=[slow_lookup]))

    try:
        with live(server) as ws:
            ws.send(text_request("look it up"))
            call = recv(ws)  # the tool now waits: the run holds the session
            assert call["content"]["parts"][0]["functionCall"]["name"] == "slow_lookup"
            with live(server) as other:  # meanwhile the session is busy
                busy = recv(other)
                busy_close = closed_with(other)
        # the client went away: the queue is closed, the run cancelled, the session freed
        answer = None
        for _ in range(100):  # the server notices the disconnection asynchronously
            answer = try_turn(server, "again")
            if answer is not None:
                break
            gate.wait(0.05)
    finally:
        gate.set()

    assert busy["error"].startswith("SessionBusyError: Session 's1' is busy")
    assert busy_close[0] == 1011
    assert answer is not None and texts(answer) == ["Back again."]
    assert model.connections[0].closed
    stored = stored_events(server)
    assert not any("functionResponse" in json.dumps(e) for e in stored)  # the tool never returned


@pytest.mark.parametrize(
    ("model", "error"),
    [
        (
            ScriptedLiveModel(connect_error=ConnectionError("live backend down")),
            "ConnectionError: live backend down",
        ),
        (ScriptedLiveModel([RuntimeError("model exploded")]), "RuntimeError: model exploded"),
    ],
    ids=["connect", "receive"],
)
def test_a_failed_run_sends_the_error_then_closes_with_1011(
    serve: Callable[[Any], LiveServer], model: ScriptedLiveModel, error: str
) -> None:
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server) as ws:
        send_unless_closed(ws, text_request("hi"))  # a refused connection may be closed
        message = recv(ws)
        while "error" not in message:  # the user's event may come first
            message = recv(ws)
        code, reason = closed_with(ws)
    with live(server) as ws:  # the session is free again: the run fails the same way
        send_unless_closed(ws, text_request("hi"))
        again = recv(ws)
        while "error" not in again:
            again = recv(ws)

    assert message == {"error": error}
    assert (code, reason) == (1011, error)
    assert not again["error"].startswith("SessionBusyError")


def test_invalid_requests_get_an_error_and_the_run_goes_on(
    serve: Callable[[Any], LiveServer],
) -> None:
    model = ScriptedLiveModel(["Still here."])
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server) as ws:
        ws.send("not json")
        garbage = recv(ws)
        ws.send(json.dumps({"blob": {"mimeType": "audio/pcm", "bytes": "AAAA"}}))
        bad_blob = recv(ws)
        ws.send(json.dumps({}))
        empty = recv(ws)
        ws.send(text_request("hello?"))
        turn = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    assert garbage["error"].startswith("Invalid LiveRequest: body: Invalid JSON")
    assert "blob.bytes: Extra inputs are not permitted" in bad_blob["error"]
    assert empty["error"].startswith('A LiveRequest needs one of "content", "blob"')
    assert texts(turn) == ["Still here."]


@pytest.mark.parametrize(
    ("query", "code", "error"),
    [
        (
            "&modalities=IMAGE",
            1008,
            "Unknown modality 'IMAGE': modalities takes TEXT, AUDIO or VIDEO.",
        ),
        ("&modalities=TEXT,speech", 1008, "Unknown modality 'speech'"),
        (
            "&proactive_audio=maybe",
            1008,
            "Query parameter proactive_audio='maybe' is not a boolean",
        ),
        (
            "&max_llm_calls=0",
            1008,
            "Query parameter max_llm_calls='0' is not an integer from 1 to 100000",
        ),
        ("&max_llm_calls=100001", 1008, "Query parameter max_llm_calls='100001' is not"),
        ("&max_llm_calls=lots", 1008, "Query parameter max_llm_calls='lots' is not"),
        ("&save_live_blob=maybe", 1008, "Query parameter save_live_blob='maybe' is not"),
    ],
)
def test_bad_query_parameters_are_refused_with_a_reason(
    serve: Callable[[Any], LiveServer], query: str, code: int, error: str
) -> None:
    model = ScriptedLiveModel(["never"])
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server, query) as ws:
        message = recv(ws)
        closed = closed_with(ws)

    assert message["error"].startswith(error)
    assert closed[0] == code and closed[1] == message["error"][:120]
    assert model.connections == []


def test_video_modality_is_accepted_for_a_live_model(serve: Callable[[Any], LiveServer]) -> None:
    model = ScriptedLiveModel(["A frame."])
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server, "&modalities=VIDEO") as ws:
        ws.send(text_request("look"))
        assert texts(recv_turn(ws)) == ["A frame."]
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    config = model.requests[0].live_connect_config
    assert config is not None and config.response_modalities == [types.Modality.VIDEO]


def test_a_message_over_the_size_limit_closes_the_socket_and_frees_the_session(
    serve: Callable[[Any], LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_realtime, "DISCONNECT_GRACE_SECONDS", 0.2)
    model = ScriptedLiveModel(["Small is fine."])
    server = serve(
        create_app(agents={"voice": LlmAgent(name="voice", model=model)}, max_request_bytes=1000)
    )
    server.client().post("/apps/voice/users/alice/sessions/s1")

    with live(server) as ws:
        ws.send(json.dumps({"blob": {"mime_type": "audio/pcm", "data": "A" * 2000}}))
        error = recv(ws)
        code, _ = closed_with(ws)
    answer = None
    for _ in range(100):  # the run ends asynchronously
        answer = try_turn(server, "small")
        if answer is not None:
            break
        threading.Event().wait(0.05)

    assert error == {"error": "Message too large: the limit is 1000 bytes."}
    assert code == 1009
    assert model.connections[0].sent == []  # the blob never reached the model
    assert answer is not None and texts(answer) == ["Small is fine."]


def test_a_state_delta_message_changes_the_session_state(
    serve: Callable[[Any], LiveServer],
) -> None:
    model = ScriptedLiveModel(["Noted."])
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server) as ws:
        ws.send(json.dumps({"stateDelta": {"mood": "happy"}}))
        ws.send(text_request("hi"))
        assert texts(recv_turn(ws)) == ["Noted."]
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    with server.client() as client:
        state = client.get("/apps/voice/users/alice/sessions/s1").json()["state"]
    assert state["mood"] == "happy"


def speaking_model(speech: types.Blob) -> ScriptedLiveModel:
    """A live model that answers with ``speech`` (inline audio), then turn_complete."""
    content = types.Content(role="model", parts=[types.Part(inline_data=speech)])
    return ScriptedLiveModel([[LlmResponse(content=content), LlmResponse(turn_complete=True)]])


def test_save_live_blob_saves_the_audio_as_artifacts_referenced_in_the_session(
    serve: Callable[[Any], LiveServer],
) -> None:
    speech = types.Blob(mime_type="audio/pcm;rate=24000", data=b"\x00\x01\x02")
    model = speaking_model(speech)
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server, query="&save_live_blob=true") as ws:
        ws.send(json.dumps({"activity_start": {}}))
        for chunk in (b"\x10\x20", b"\x30"):
            blob = {"mime_type": "audio/pcm;rate=16000", "data": base64.b64encode(chunk).decode()}
            ws.send(json.dumps({"blob": blob}))
        ws.send(json.dumps({"activity_end": {}}))
        turn = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws)[0] == 1000

    refs = [e for e in turn if "fileData" in json.dumps(e.get("content", {}))]
    assert [(e["author"], e["content"]["role"]) for e in refs] == [
        ("user", "user"),
        ("voice", "model"),
    ]
    uris = [e["content"]["parts"][0]["fileData"]["fileUri"] for e in refs]
    assert all(
        u.startswith("artifact://voice/alice/s1/_adk_live/adk_live_audio_storage_") for u in uris
    )
    stored = stored_events(server)
    assert [e["id"] for e in stored if "fileData" in json.dumps(e)] == [e["id"] for e in refs]
    assert not any("inlineData" in json.dumps(e) for e in stored)
    with server.client() as client:
        names = client.get("/apps/voice/users/alice/sessions/s1/artifacts").json()
        saved = {
            name: client.get(f"/apps/voice/users/alice/sessions/s1/artifacts/{name}").json()
            for name in names
        }
    assert sorted(names) == sorted(u.split("/_adk_live/")[1].split("#")[0] for u in uris)
    blobs = {name.split("_")[4]: part["inlineData"] for name, part in saved.items()}
    assert blobs["input"]["mimeType"] == "audio/pcm;rate=16000"
    assert base64.urlsafe_b64decode(blobs["input"]["data"]) == b"\x10\x20\x30"
    assert blobs["output"]["mimeType"] == "audio/pcm;rate=24000"
    assert base64.urlsafe_b64decode(blobs["output"]["data"]) == speech.data


def test_without_save_live_blob_no_artifact_is_saved(serve: Callable[[Any], LiveServer]) -> None:
    model = speaking_model(types.Blob(mime_type="audio/pcm;rate=24000", data=b"\x00"))
    server = start(serve, LlmAgent(name="voice", model=model))

    with live(server, query="&save_live_blob=false") as ws:
        ws.send(text_request("hi"))
        turn = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    assert not any("fileData" in json.dumps(e) for e in turn)
    with server.client() as client:
        assert client.get("/apps/voice/users/alice/sessions/s1/artifacts").json() == []


def test_max_llm_calls_query_parameter_sets_the_runs_limit(
    serve: Callable[[Any], LiveServer],
) -> None:
    def limits(tool_context: ToolContext) -> dict[str, Any]:
        """The run's limits."""
        config = tool_context.invocation_context.run_config
        return {"max_llm_calls": config.max_llm_calls, "save": config.save_live_blob}

    model = ScriptedLiveModel([function_call("limits", {}), "Done."])
    server = start(serve, LlmAgent(name="voice", model=model, tools=[limits]))

    with live(server, query="&modalities=TEXT&max_llm_calls=7&save_live_blob=1") as ws:
        ws.send(text_request("limits?"))
        call_turn = recv_turn(ws)
        recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    response = call_turn[1]["content"]["parts"][0]["functionResponse"]["response"]
    assert response == {"max_llm_calls": 7, "save": True}
