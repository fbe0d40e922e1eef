"""Gemini: Google's models through the ``google-genai`` SDK.

Registered for ``gemini-.*`` names, so ``LlmAgent(model="gemini-2.5-flash")`` works.
The API key comes from ``GOOGLE_API_KEY`` (or ``api_key=``); Vertex AI is used when
``GOOGLE_GENAI_USE_VERTEXAI`` is set (or ``vertexai=True``), as the SDK decides.
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, PrivateAttr

from pyadk import types
from pyadk.models._errors import (
    error_for_status,
    is_transport_error,
    missing_sdk,
    response_headers,
    retry_after_seconds,
    unavailable,
)
from pyadk.models._history import ensure_user_turn
from pyadk.models._loop_client import LoopBoundClient
from pyadk.models._schemas import is_genai_schema_dict
from pyadk.models._streaming import ResponseBuilder, final_response
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

if TYPE_CHECKING:
    from pyadk.models.base_llm_connection import BaseLlmConnection

try:
    from google import genai
    from google.genai import errors as genai_errors
    from google.genai import types as genai_types
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise missing_sdk("Gemini", "google-genai", "gemini") from exc

_CLIENT_CALL_ID_PREFIX = "adk-"
_EXCLUDED_CONFIG = {"response_schema", "response_json_schema", "system_instruction", "labels"}


class Gemini(BaseLlm):
    """A Gemini model (Gemini Developer API or Vertex AI).

    ``base_url`` / ``api_version`` override the SDK's endpoint (tests point it at a local
    server); ``client`` uses a ``google.genai.Client`` you built yourself.
    """

    _supported: ClassVar[list[str]] = [
        r"gemini-.*",
        r"projects/.+/locations/.+/endpoints/.+",
        r"projects/.+/locations/.+/publishers/google/models/gemini.+",
    ]

    model: str = "gemini-2.5-flash"
    api_key: str | None = None
    base_url: str | None = None
    api_version: str | None = None
    vertexai: bool | None = None
    project: str | None = None
    location: str | None = None
    max_retries: int | None = None
    """Retries by the SDK (None: the SDK's default); 0 when ``model_retry`` retries."""
    client: Any | None = None

    _client_holder: LoopBoundClient[Any] = PrivateAttr(default_factory=LoopBoundClient)

    def _client(self) -> genai.Client:
        if self.client is not None:
            return self.client
        return self._client_holder.get(self._new_client)

    def _new_client(self) -> genai.Client:
        http_options: dict[str, Any] = {}
        if self.base_url:
            http_options["base_url"] = self.base_url
        if self.api_version:
            http_options["api_version"] = self.api_version
        if self.max_retries is not None:
            http_options["retry_options"] = genai_types.HttpRetryOptions(
                attempts=self.max_retries + 1
            )
        return genai.Client(
            api_key=self.api_key,
            vertexai=self.vertexai,
            project=self.project,
            location=self.location,
            http_options=genai_types.HttpOptions(**http_options) if http_options else None,
        )

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        model = llm_request.model or self.model
        contents = [_to_genai_content(c) for c in ensure_user_turn(list(llm_request.contents))]
        config = _to_genai_config(llm_request.config)
        models = self._client().aio.models
        try:
            if not stream:
                response = await models.generate_content(
                    model=model, contents=contents, config=config
                )
                yield _from_response(response)
                return
            builder = ResponseBuilder()
            error: LlmResponse | None = None
            async for chunk in await models.generate_content_stream(
                model=model, contents=contents, config=config
            ):
                error = _read_chunk(builder, chunk) or error
                for partial in _partials(builder, chunk):
                    yield partial
        except genai_errors.APIError as exc:
            message = f"Gemini model {model!r} failed with HTTP {exc.code}: {exc.message}"
            raise error_for_status(
                exc.code, message, error_type=exc.status, retry_after=_retry_after(exc)
            ) from exc
        except Exception as exc:
            if is_transport_error(exc):
                raise unavailable("Gemini", model, exc) from exc
            raise
        yield error if error is not None else builder.final()

    @asynccontextmanager
    async def connect(self, llm_request: LlmRequest) -> AsyncIterator[BaseLlmConnection]:
        """Opens a Gemini Live session (``client.aio.live.connect``) with the request's
        ``live_connect_config``; use a Live model (e.g. ``gemini-live-2.5-flash``)."""
        from pyadk.models.gemini_llm_connection import GeminiLlmConnection

        model = llm_request.model or self.model
        config = _to_genai_live_config(llm_request.live_connect_config or types.LiveConnectConfig())
        async with AsyncExitStack() as stack:
            try:
                session = await stack.enter_async_context(
                    self._client().aio.live.connect(model=model, config=config)
                )
            except genai_errors.APIError as exc:
                message = (
                    f"Gemini model {model!r} refused the live connection "
                    f"(code {exc.code}): {_api_error_text(exc)}"
                )
                # A WebSocket close code (1000-4999) is not an HTTP status.
                status = exc.code if 400 <= exc.code < 600 else None
                raise error_for_status(status, message, error_type=exc.status) from exc
            except Exception as exc:
                if is_transport_error(exc) or _is_websocket_error(exc):
                    raise unavailable("Gemini", model, exc) from exc
                raise
            connection = GeminiLlmConnection(session, model)
            try:
                yield connection
            finally:
                await connection.close()

    async def close(self) -> None:
        client = self._client_holder.take()
        aclose = getattr(getattr(client, "aio", None), "aclose", None)
        if aclose is not None:
            await aclose()


_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def _retry_after(exc: genai_errors.APIError) -> float | None:
    """The wait the API asked for: a ``Retry-After`` header, else the ``retryDelay`` of
    the ``google.rpc.RetryInfo`` detail in the error body (how Gemini says it)."""
    seconds = retry_after_seconds(response_headers(exc))
    if seconds is not None:
        return seconds
    body = exc.details if isinstance(exc.details, dict) else {}
    error = body.get("error", body)
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and detail.get("@type") == _RETRY_INFO:
            return _duration(detail.get("retryDelay"))
    return None


def _duration(value: Any) -> float | None:
    """Seconds of a protobuf Duration in JSON (``"37s"``, ``"1.5s"``), None if invalid."""
    if not isinstance(value, str) or not value.endswith("s"):
        return None
    try:
        seconds = float(value[:-1])
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _to_genai_content(content: types.Content) -> genai_types.Content:
    data = content.model_dump(exclude_none=True)
    for part in data.get("parts") or []:
        for key in ("function_call", "function_response"):
            item = part.get(key)
            if item and str(item.get("id", "")).startswith(_CLIENT_CALL_ID_PREFIX):
                del item["id"]  # pyadk's own ids: the API did not make them
    return genai_types.Content.model_validate(data)


def _to_genai_config(config: types.GenerateContentConfig) -> genai_types.GenerateContentConfig:
    data = config.model_dump(exclude_none=True, exclude=_EXCLUDED_CONFIG)
    system = config.system_instruction
    if isinstance(system, types.Content):
        data["system_instruction"] = system.model_dump(exclude_none=True)
    elif system:
        data["system_instruction"] = system
    schema = config.response_schema
    if isinstance(schema, types.Schema):
        data["response_schema"] = schema.model_dump(exclude_none=True)
    elif isinstance(schema, dict) and not is_genai_schema_dict(schema):
        data["response_json_schema"] = schema  # a JSON Schema (lower-case types)
    elif schema is not None:
        data["response_schema"] = schema  # pydantic class, type, genai-style dict
    if config.response_json_schema is not None:
        data["response_json_schema"] = config.response_json_schema
    if schema is not None or config.response_json_schema is not None:
        data.setdefault("response_mime_type", "application/json")
    return genai_types.GenerateContentConfig.model_validate(data)


def _api_error_text(exc: genai_errors.APIError) -> str:
    """What an API error says (a WebSocket close reason is in ``details``)."""
    return str(exc.message or exc.status or exc.details or "no reason given")


def _is_websocket_error(exc: BaseException) -> bool:
    """True for a failed WebSocket handshake (e.g. an HTTP error instead of an upgrade)."""
    return type(exc).__module__.split(".")[0] == "websockets"


def _to_genai_live_config(config: types.LiveConnectConfig) -> genai_types.LiveConnectConfig:
    data = config.model_dump(exclude_none=True, exclude={"system_instruction"})
    system = config.system_instruction
    if isinstance(system, types.Content):
        data["system_instruction"] = system.model_dump(exclude_none=True)
    elif system:
        data["system_instruction"] = system
    return genai_types.LiveConnectConfig.model_validate(data)


def _finish_reason(value: Any) -> types.FinishReason | None:
    if value is None:
        return None
    name = getattr(value, "value", value)
    try:
        return types.FinishReason(name)
    except ValueError:
        return types.FinishReason.OTHER


def _usage(value: BaseModel | None) -> types.UsageMetadata | None:
    return None if value is None else types.UsageMetadata.model_validate(value)


def _blocked(response: Any) -> LlmResponse | None:
    """The error response for a prompt the API refused to answer, if it was."""
    feedback = getattr(response, "prompt_feedback", None)
    reason = getattr(feedback, "block_reason", None) if feedback else None
    if response.candidates or reason is None:
        return None
    code = str(getattr(reason, "value", reason))
    return LlmResponse(
        error_code=code,
        error_message=getattr(feedback, "block_reason_message", None) or f"Prompt blocked: {code}",
        usage_metadata=_usage(response.usage_metadata),
    )


def _from_response(response: Any) -> LlmResponse:
    blocked = _blocked(response)
    if blocked is not None:
        return blocked
    candidate = response.candidates[0] if response.candidates else None
    parts: list[types.Part] = []
    if candidate is not None and candidate.content is not None:
        parts = types.Content.model_validate(candidate.content).parts or []
    return final_response(
        parts,
        finish_reason=_finish_reason(candidate.finish_reason if candidate else None),
        usage=_usage(response.usage_metadata),
        model_version=response.model_version,
    )


def _read_chunk(builder: ResponseBuilder, chunk: Any) -> LlmResponse | None:
    """Adds a streamed chunk's parts to ``builder``; returns an error response if blocked."""
    if chunk.usage_metadata is not None:
        builder.usage = _usage(chunk.usage_metadata)
    if chunk.model_version:
        builder.model_version = chunk.model_version
    candidate = chunk.candidates[0] if chunk.candidates else None
    if candidate is None:
        return _blocked(chunk)
    if candidate.finish_reason is not None:
        builder.finish_reason = _finish_reason(candidate.finish_reason)
    return None


def _partials(builder: ResponseBuilder, chunk: Any) -> list[LlmResponse]:
    candidate = chunk.candidates[0] if chunk.candidates else None
    if candidate is None or candidate.content is None:
        return []
    partials = []
    for part in types.Content.model_validate(candidate.content).parts or []:
        if part.text is not None:
            partial = builder.text(part.text, thought=bool(part.thought))
            if part.thought_signature is not None:
                builder.signature(part.thought_signature, thought=bool(part.thought))
            if partial is not None:
                partials.append(partial)
        else:
            builder.part(part)
    return partials
