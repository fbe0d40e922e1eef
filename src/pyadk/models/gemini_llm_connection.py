"""GeminiLlmConnection: a live session of the Gemini Live API (``client.aio.live``).

Opened by :meth:`pyadk.models.Gemini.connect`. It turns pyadk content into the
session's client messages and the server's messages into LlmResponses: each text
chunk as a partial response and the turn's whole text once the turn ends, function
calls as soon as they come, transcriptions (partial chunks, then the whole finished
text), ``interrupted`` and ``turn_complete`` signals, usage, session resumption
updates (``live_session_resumption_update``) and ``go_away`` notices. A connection
reopened with a handle (``session_resumption.handle`` of the connect config) resumes
the server's session.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import Any

from pyadk import types
from pyadk.flows.live_blob_saver import is_live_blob_reference
from pyadk.models.base_llm_connection import (
    BaseLlmConnection,
    LiveConnectionClosedError,
    RealtimeInput,
)
from pyadk.models.gemini import _api_error_text, _to_genai_content
from pyadk.models.llm_response import LlmResponse

try:
    from google.genai import errors as genai_errors
    from google.genai import types as genai_types
except ImportError as exc:  # pragma: no cover - depends on the environment
    from pyadk.models._errors import missing_sdk

    raise missing_sdk("Gemini", "google-genai", "gemini") from exc

logger = logging.getLogger(__name__)

_NORMAL_CLOSE = 1000
_LOST = frozenset({1006, 1011})
"""Close codes of a connection lost (abnormal closure, server error): resumable."""


class GeminiLlmConnection(BaseLlmConnection):
    """A Gemini Live session (``google.genai`` ``AsyncSession``) as a pyadk connection."""

    def __init__(self, session: Any, model: str) -> None:
        self._session = session
        self._model = model
        self._closed = False
        self._text = ""
        self._thought = False
        self._heard = _TranscriptBuffer(of_input=True)
        self._said = _TranscriptBuffer(of_input=False)

    async def send_history(self, history: list[types.Content]) -> None:
        contents = [c for c in (_without_media(c) for c in history) if c is not None]
        if not contents:
            return
        await self._session.send_client_content(
            turns=[_to_genai_content(c) for c in contents],
            turn_complete=contents[-1].role == "user",
        )

    async def send_content(self, content: types.Content) -> None:
        await self._send_content(content)

    async def _send_content(self, content: types.Content, *, partial: bool = False) -> None:
        parts = content.parts or []
        if parts and all(part.function_response is not None for part in parts):
            genai = _to_genai_content(content)
            await self._session.send_tool_response(
                function_responses=[p.function_response for p in genai.parts or []]
            )
            return
        await self._session.send_client_content(
            turns=[_to_genai_content(content)], turn_complete=not partial
        )

    async def send_realtime(self, blob: RealtimeInput) -> None:
        session = self._session
        if isinstance(blob, types.Blob):
            data = genai_types.Blob(data=blob.data, mime_type=blob.mime_type)
            mime = (blob.mime_type or "").lower()
            if mime.startswith("audio/"):
                await session.send_realtime_input(audio=data)
            elif mime.startswith(("image/", "video/")):
                await session.send_realtime_input(video=data)
            else:
                await session.send_realtime_input(media=data)
        elif isinstance(blob, types.ActivityStart):
            await session.send_realtime_input(activity_start=genai_types.ActivityStart())
        elif isinstance(blob, types.ActivityEnd):
            await session.send_realtime_input(activity_end=genai_types.ActivityEnd())
        elif isinstance(blob, types.LiveClientRealtimeInput) and blob.audio_stream_end:
            await session.send_realtime_input(audio_stream_end=True)
        else:
            raise ValueError(f"Unsupported realtime input for Gemini Live: {blob!r}")

    async def receive(self) -> AsyncGenerator[LlmResponse, None]:
        """The responses of one model turn (the flow calls it again for the next);
        nothing once the session closed."""
        if self._closed:
            return
        messages = self._session.receive()
        try:
            async for message in messages:
                for response in self._responses_of(message):
                    yield response
        except genai_errors.APIError as error:
            if error.code == _NORMAL_CLOSE or self._closed:
                self._closed = True
                return
            raise LiveConnectionClosedError(
                f"Gemini Live session of model {self._model!r} ended with code "
                f"{error.code}: {_api_error_text(error)}",
                code=error.code,
                resumable=error.code in _LOST,
            ) from error
        finally:
            close = getattr(messages, "aclose", None)
            if close is not None:
                await close()

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await self._session.close()

    # -- server messages ------------------------------------------------------------------
    def _responses_of(self, message: Any) -> list[LlmResponse]:
        out: list[LlmResponse] = []
        if message.usage_metadata is not None:
            out.append(LlmResponse(usage_metadata=_usage(message.usage_metadata)))
        content = message.server_content
        if content is not None:
            out.extend(self._server_content(content))
        if message.tool_call is not None:
            out.extend(self._flush_text())
            calls = [
                types.Part(function_call=types.FunctionCall.model_validate(call))
                for call in message.tool_call.function_calls or []
            ]
            if calls:
                out.append(LlmResponse(content=types.Content(role="model", parts=calls)))
        update = message.session_resumption_update
        if update is not None:
            out.append(
                LlmResponse(
                    live_session_resumption_update=types.LiveServerSessionResumptionUpdate(
                        new_handle=update.new_handle,
                        resumable=update.resumable,
                        last_consumed_client_message_index=update.last_consumed_client_message_index,
                    )
                )
            )
        if message.go_away is not None:
            logger.info("Gemini Live session will close soon: %s", message.go_away)
            go_away = types.LiveServerGoAway(time_left=message.go_away.time_left)
            out.append(LlmResponse(go_away=go_away))
        return out

    def _server_content(self, content: Any) -> list[LlmResponse]:
        out: list[LlmResponse] = []
        turn = content.model_turn
        for part in (turn.parts or []) if turn is not None else []:
            if part.text:
                thought = bool(part.thought)
                if self._text and thought != self._thought:
                    out.extend(self._flush_text())
                self._text += part.text
                self._thought = thought
                out.append(
                    LlmResponse(
                        content=types.Content(
                            role="model",
                            parts=[types.Part(text=part.text, thought=thought or None)],
                        ),
                        partial=True,
                    )
                )
            else:
                if part.inline_data is None:
                    out.extend(self._flush_text())
                out.append(
                    LlmResponse(
                        content=types.Content(role="model", parts=[types.Part.model_validate(part)])
                    )
                )
        out.extend(self._transcriptions(content))
        ended = bool(content.turn_complete or content.interrupted or content.generation_complete)
        if ended:
            out.extend(self._flush_transcriptions())
        if content.turn_complete:
            out.extend(self._flush_text(interrupted=bool(content.interrupted)))
            out.append(LlmResponse(turn_complete=True, interrupted=content.interrupted))
        elif content.interrupted:
            flushed = self._flush_text(interrupted=True)
            out.extend(flushed or [LlmResponse(interrupted=True)])
        return out

    def _transcriptions(self, content: Any) -> list[LlmResponse]:
        return self._heard.take(content.input_transcription) + self._said.take(
            content.output_transcription
        )

    def _flush_transcriptions(self) -> list[LlmResponse]:
        return self._heard.flush() + self._said.flush()

    def _flush_text(self, *, interrupted: bool = False) -> list[LlmResponse]:
        """The whole text received since the last flush, as one response."""
        if not self._text:
            return []
        part = types.Part(text=self._text, thought=self._thought or None)
        self._text, self._thought = "", False
        return [
            LlmResponse(
                content=types.Content(role="model", parts=[part]),
                interrupted=interrupted or None,
            )
        ]


class _TranscriptBuffer:
    """One direction's transcription of the turn so far (the user's or the model's)."""

    def __init__(self, *, of_input: bool) -> None:
        self.of_input = of_input
        self.text = ""

    def take(self, chunk: Any) -> list[LlmResponse]:
        """The responses for a received transcription chunk (None: none): the chunk's
        text, partial, and the whole transcription once it is finished."""
        if chunk is None:
            return []
        out = []
        if chunk.text:
            self.text += chunk.text
            out.append(_transcript(chunk.text, of_input=self.of_input, finished=False))
        if chunk.finished:
            out.append(_transcript(self.text, of_input=self.of_input, finished=True))
            self.text = ""
        return out

    def flush(self) -> list[LlmResponse]:
        """The unfinished transcription as a finished one (none when empty)."""
        if not self.text:
            return []
        text, self.text = self.text, ""
        return [_transcript(text, of_input=self.of_input, finished=True)]


def _transcript(text: str, *, of_input: bool, finished: bool) -> LlmResponse:
    value = types.Transcription(text=text, finished=finished)
    if of_input:
        return LlmResponse(input_transcription=value, partial=not finished)
    return LlmResponse(output_transcription=value, partial=not finished)


def _usage(value: Any) -> types.UsageMetadata:
    """Live usage (``response_token_count``) as GenerateContent usage."""
    return types.UsageMetadata(
        prompt_token_count=value.prompt_token_count,
        candidates_token_count=value.response_token_count,
        total_token_count=value.total_token_count,
        thoughts_token_count=value.thoughts_token_count,
        cached_content_token_count=value.cached_content_token_count,
        tool_use_prompt_token_count=value.tool_use_prompt_token_count,
    )


_MEDIA_PREFIXES = ("audio/", "video/", "image/")


def _without_media(content: types.Content) -> types.Content | None:
    """``content`` without audio/video/image parts (the Live API refuses them in turns;
    transcriptions carry what was said) nor references to saved live audio
    (``artifact://.../_adk_live/...``: ``save_live_blob``); None when nothing is left."""
    parts = [
        part
        for part in content.parts or []
        if (
            part.inline_data is None
            or not (part.inline_data.mime_type or "").lower().startswith(_MEDIA_PREFIXES)
        )
        and not is_live_blob_reference(part)
    ]
    if not parts:
        return None
    return (
        content
        if len(parts) == len(content.parts or [])
        else content.model_copy(update={"parts": parts})
    )
