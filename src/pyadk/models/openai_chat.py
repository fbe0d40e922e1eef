"""OpenAIChat: any OpenAI-compatible chat-completions server through the ``openai`` SDK.

OpenAI itself, vLLM, Ollama, the llama.cpp server, LM Studio... Registered for
``openai/<model>`` names (``LlmAgent(model="openai/gpt-4o-mini")``), or build one::

    OpenAIChat(model="qwen2.5:0.5b", base_url="http://127.0.0.1:11434/v1")
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator
from typing import Any, ClassVar

from pydantic import PrivateAttr

from pyadk.models import _openai_messages as wire
from pyadk.models._errors import (
    error_for_status,
    missing_sdk,
    response_headers,
    retry_after_seconds,
    unavailable,
)
from pyadk.models._loop_client import LoopBoundClient
from pyadk.models._streaming import ResponseBuilder
from pyadk.models._text_tool_calls import recover_text_tool_calls
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

try:
    import openai
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise missing_sdk("OpenAIChat", "openai", "openai") from exc

_PREFIX = "openai/"
_NO_KEY = "not-needed"


class OpenAIChat(BaseLlm):
    """A model served by an OpenAI-compatible ``/chat/completions`` endpoint.

    ``base_url`` defaults to ``OPENAI_BASE_URL`` (else OpenAI's API), ``api_key`` to
    ``OPENAI_API_KEY``; a local server without a key needs only ``base_url``.
    ``max_retries`` is the SDK's own retry count (its default when None); set it to 0
    when an agent's ``model_retry`` policy does the retrying. ``extra_body`` is merged
    into every request (e.g. server-specific sampling options).
    """

    _supported: ClassVar[list[str]] = [r"openai/.+"]

    base_url: str | None = None
    api_key: str | None = None
    max_retries: int | None = None
    timeout: float | None = None
    stream_usage: bool = True
    """Asks for usage in streamed answers (``stream_options.include_usage``)."""
    extra_body: dict[str, Any] | None = None
    text_tool_calls: bool = True
    """An answer that is only a declared tool's call written as JSON text (as small local
    models often give) becomes that call."""
    reasoning_field: str | None = "auto"
    """The assistant-message field that sends earlier reasoning (thought parts) back:
    ``"auto"`` is the field this server answers with (``reasoning_content``, which
    DeepSeek requires and llama.cpp reads, until it has answered with ``reasoning``, as
    newer vLLM does); or a field name; None sends no reasoning back."""

    _client_holder: LoopBoundClient[Any] = PrivateAttr(default_factory=LoopBoundClient)
    _reasoning_seen: str | None = PrivateAttr(default=None)

    @property
    def model_name(self) -> str:
        """The model name sent to the server (without the ``openai/`` prefix)."""
        return self.model.removeprefix(_PREFIX)

    def _client(self) -> openai.AsyncOpenAI:
        return self._client_holder.get(self._new_client)

    def _new_client(self) -> openai.AsyncOpenAI:
        base_url = self.base_url or os.environ.get("OPENAI_BASE_URL")
        api_key = self.api_key or os.environ.get("OPENAI_API_KEY")
        options: dict[str, Any] = {"base_url": base_url, "api_key": api_key}
        if api_key is None and base_url is not None:
            options["api_key"] = _NO_KEY
        if self.max_retries is not None:
            options["max_retries"] = self.max_retries
        if self.timeout is not None:
            options["timeout"] = self.timeout
        return openai.AsyncOpenAI(**options)

    def _params(self, request: LlmRequest, stream: bool) -> dict[str, Any]:
        name = (request.model or self.model).removeprefix(_PREFIX)
        params: dict[str, Any] = {
            "model": name,
            "messages": wire.build_messages(
                request, adapter="OpenAIChat", reasoning_field=self._reasoning_out()
            ),
            **wire.sampling_params(request.config),
        }
        params.update(wire.tool_and_format_params(request, adapter="OpenAIChat"))
        if stream:
            params["stream"] = True
            if self.stream_usage:
                params["stream_options"] = {"include_usage": True}
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params

    def _reasoning_out(self) -> str | None:
        if self.reasoning_field != "auto":
            return self.reasoning_field
        return self._reasoning_seen or wire.DEFAULT_REASONING_FIELD

    def _saw(self, message_or_chunk: Any) -> None:
        field = wire.reasoning_field_of(message_or_chunk)
        if field is not None:
            self._reasoning_seen = field

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        params = self._params(llm_request, stream)
        builder = ResponseBuilder()
        try:
            result = await self._client().chat.completions.create(**params)
            if stream:
                async for chunk in result:
                    self._saw(chunk)
                    for partial in wire.read_chunk(builder, chunk):
                        yield partial
            else:
                choice = result.choices[0] if result.choices else None
                if choice is not None:
                    self._saw(choice.message)
                    wire.read_message(builder, choice.message)
                    builder.finish_reason = wire.finish_reason(choice.finish_reason)
                builder.usage = wire.usage(result.usage)
                builder.model_version = result.model
        except openai.APIStatusError as exc:
            raise _mapped(exc, self.model_name) from exc
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise unavailable("OpenAI-compatible", self.model_name, exc) from exc
        except openai.APIError as exc:  # e.g. an error event inside a stream
            message = f"OpenAI-compatible model {self.model_name!r} failed: {exc}"
            raise error_for_status(None, message, error_type=exc.type) from exc
        final = builder.final()
        if self.text_tool_calls:
            final = recover_text_tool_calls(final, wire.callable_names(params))
        yield final

    async def close(self) -> None:
        client = self._client_holder.take()
        if client is not None:
            await client.close()


def _mapped(exc: openai.APIStatusError, model: str) -> Exception:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    error_type = error.get("type") if isinstance(error, dict) else None
    message = f"OpenAI-compatible model {model!r} failed with HTTP {exc.status_code}: {exc.message}"
    return error_for_status(
        exc.status_code,
        message,
        error_type=error_type,
        retry_after=retry_after_seconds(response_headers(exc)),
    )
