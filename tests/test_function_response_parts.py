"""``FunctionResponse.parts``: the types (google-genai's names and JSON), and events
holding them kept exactly by every session store."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyadk import types
from pyadk.events import Event
from pyadk.sessions import InMemorySessionService, SqliteSessionService
from pyadk.sessions._event_codec import decode, encode

PNG = b"\x89PNG\r\n\x1a\n\x00\xff"


def _response() -> types.FunctionResponse:
    return types.FunctionResponse(
        id="c1",
        name="snapshot",
        response={"camera": "front"},
        parts=[
            types.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png"),
            types.FunctionResponsePart.from_uri(
                file_uri="gs://b/c.pdf", mime_type="application/pdf"
            ),
        ],
    )


def _event() -> Event:
    return Event(
        author="a",
        invocation_id="inv",
        content=types.Content(role="user", parts=[types.Part(function_response=_response())]),
    )


def test_json_uses_camel_case_and_base64_and_reads_back() -> None:
    data = _response().model_dump(mode="json", by_alias=True, exclude_none=True)
    assert data["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgoA_w=="}},
        {"fileData": {"fileUri": "gs://b/c.pdf", "mimeType": "application/pdf"}},
    ]
    assert types.FunctionResponse.model_validate(data) == _response()
    # Standard base64 (as google-genai and the Gemini API write it) is read too.
    standard = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgoA/w=="}}
    assert types.FunctionResponsePart.model_validate(standard).inline_data.data == PNG


def test_a_plain_function_response_has_no_parts() -> None:
    response = types.Part.from_function_response(name="f", response={"ok": True})
    assert response.function_response.parts is None
    assert "parts" not in response.model_dump(exclude_none=True)["function_response"]


def test_from_function_response_takes_parts_as_google_genai_does() -> None:
    media = [types.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png")]
    part = types.Part.from_function_response(name="f", response={}, parts=media)
    assert part.function_response.parts == media


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="extra"):
        types.FunctionResponsePart.model_validate({"inlineData": {"data": "", "size": 3}})


def test_google_genai_objects_are_converted() -> None:
    genai = pytest.importorskip("google.genai.types")
    theirs = genai.FunctionResponse(
        name="snapshot",
        response={"camera": "front"},
        parts=[genai.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png")],
    )
    ours = types.Part.model_validate(genai.Part(function_response=theirs)).function_response
    assert ours.parts == [types.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png")]
    assert isinstance(ours.parts[0].inline_data, types.FunctionResponseBlob)


def test_the_in_memory_codec_round_trips_exactly() -> None:
    event = _event()
    decoded = decode(encode(event), Event)
    assert decoded == event
    response = decoded.content.parts[0].function_response
    assert isinstance(response.parts[0], types.FunctionResponsePart)
    assert response.parts[0].model_fields_set == {"inline_data"}
    assert response.parts[0].inline_data.data == PNG


async def test_the_in_memory_service_keeps_the_media() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.append_event(session, _event())
    stored = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert stored.events[-1].content.parts[0].function_response == _response()


async def test_sqlite_sessions_keep_the_media_across_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    service = SqliteSessionService(path)
    try:
        session = await service.create_session(app_name="app", user_id="u", session_id="s")
        await service.append_event(session, _event())
    finally:
        await service.close()
    reopened = SqliteSessionService(path)
    try:
        stored = await reopened.get_session(app_name="app", user_id="u", session_id="s")
    finally:
        await reopened.close()
    assert stored is not None
    assert stored.events[-1].content.parts[0].function_response == _response()


def test_event_json_round_trips() -> None:
    event = _event()
    assert Event.model_validate_json(event.model_dump_json(by_alias=True)) == event
