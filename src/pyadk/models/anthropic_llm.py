"""Claude: Anthropic's models through the ``anthropic`` SDK (Messages API).

Registered for ``claude-.*`` and ``anthropic/<model>`` names. The API key comes from
``ANTHROPIC_API_KEY`` (or ``api_key=``). Thinking blocks are kept on the answer as
thought parts with their signatures and sent back on the next turns, as tool use with
extended thinking requires.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, ClassVar

from pydantic import PrivateAttr

from pyadk.models import _anthropic_messages as wire
from pyadk.models._errors import (
    error_for_status,
    missing_sdk,
    response_headers,
    retry_after_seconds,
    unavailable,
)
from pyadk.models._loop_client import LoopBoundClient
from pyadk.models._streaming import ResponseBuilder
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

try:
    import anthropic
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise missing_sdk("Claude", "anthropic", "anthropic") from exc

_PREFIX = "anthropic/"


class Claude(BaseLlm):
    """An Anthropic Claude model.

    ``max_tokens`` is the default output limit (the API requires one);
    ``config.max_output_tokens`` overrides it per request. ``thinking`` is passed as
    the API's ``thinking`` parameter (e.g. ``{"type": "enabled", "budget_tokens": 2048}``);
    a request's ``thinking_config.thinking_budget`` enables it too. ``max_retries`` is
    the SDK's retry count (its default when None).
    """

    _supported: ClassVar[list[str]] = [r"claude-.*", r"anthropic/.+"]

    model: str = "claude-sonnet-4-6"
    api_key: str | None = None
    base_url: str | None = None
    max_tokens: int = 4096
    max_retries: int | None = None
    timeout: float | None = None
    thinking: dict[str, Any] | None = None

    _client_holder: LoopBoundClient[Any] = PrivateAttr(default_factory=LoopBoundClient)

    @property
    def model_name(self) -> str:
        """The model name sent to the API (without the ``anthropic/`` prefix)."""
        return self.model.removeprefix(_PREFIX)

    def _client(self) -> anthropic.AsyncAnthropic:
        return self._client_holder.get(self._new_client)

    def _new_client(self) -> anthropic.AsyncAnthropic:
        options: dict[str, Any] = {}
        if self.api_key is not None:
            options["api_key"] = self.api_key
        if self.base_url is not None:
            options["base_url"] = self.base_url
        if self.max_retries is not None:
            options["max_retries"] = self.max_retries
        if self.timeout is not None:
            options["timeout"] = self.timeout
        return anthropic.AsyncAnthropic(**options)

    def _params(self, request: LlmRequest, stream: bool) -> dict[str, Any]:
        config = request.config
        params: dict[str, Any] = {
            "model": (request.model or self.model).removeprefix(_PREFIX),
            "messages": wire.build_messages(request),
            "max_tokens": config.max_output_tokens or self.max_tokens,
        }
        system = request.system_instruction_text()
        if system:
            params["system"] = system
        thinking = self.thinking
        budget = config.thinking_config.thinking_budget if config.thinking_config else None
        if thinking is None and budget:
            thinking = {"type": "enabled", "budget_tokens": budget}
        if thinking is not None:
            params["thinking"] = thinking
            needed = int(thinking.get("budget_tokens") or 0)
            if needed >= params["max_tokens"]:
                params["max_tokens"] = needed + self.max_tokens
        if config.stop_sequences:
            params["stop_sequences"] = config.stop_sequences
        # Sampling options are no longer named parameters of the SDK; older models still
        # take them in the body.
        sampling = {
            "temperature": config.temperature,
            "top_p": config.top_p,
            "top_k": int(config.top_k) if config.top_k is not None else None,
        }
        extra = {k: v for k, v in sampling.items() if v is not None}
        if extra:
            params["extra_body"] = extra
        tools, choice = wire.build_tools(request)
        if tools:
            params["tools"] = tools
        if choice is not None:
            params["tool_choice"] = choice
        output = wire.build_output_format(request)
        if output is not None:
            params["output_config"] = output
        if stream:
            params["stream"] = True
        return params

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        params = self._params(llm_request, stream)
        builder = ResponseBuilder()
        try:
            result = await self._client().messages.create(**params)
            if stream:
                async for event in result:
                    partial = _read_event(builder, event)
                    if partial is not None:
                        yield partial
            else:
                for index, block in enumerate(result.content):
                    wire.read_block(builder, block, index)
                builder.finish_reason = wire.stop_reason(result.stop_reason)
                builder.usage = wire.usage(result.usage)
                builder.model_version = result.model
        except anthropic.APIStatusError as exc:
            raise _mapped(exc, self.model_name) from exc
        except (anthropic.APIConnectionError, anthropic.APITimeoutError) as exc:
            raise unavailable("Anthropic", self.model_name, exc) from exc
        yield builder.final()

    async def close(self) -> None:
        client = self._client_holder.take()
        if client is not None:
            await client.close()


def _read_event(builder: ResponseBuilder, event: Any) -> LlmResponse | None:
    kind = event.type
    if kind == "message_start":
        builder.usage = wire.usage(event.message.usage)
        builder.model_version = event.message.model
    elif kind == "content_block_start":
        return wire.read_block(builder, event.content_block, event.index)
    elif kind == "content_block_delta":
        return wire.read_delta(builder, event.delta, event.index)
    elif kind == "message_delta":
        builder.finish_reason = wire.stop_reason(event.delta.stop_reason)
        builder.usage = wire.usage(event.usage, builder.usage)
    return None


def _mapped(exc: anthropic.APIStatusError, model: str) -> Exception:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error")
    error_type = error.get("type") if isinstance(error, dict) else None
    # An error event inside a stream arrives with the stream's HTTP 200.
    status: int | None = exc.status_code if exc.status_code >= 400 else None
    where = f"HTTP {status}" if status is not None else "an error event in the stream"
    if status is None and error_type == "overloaded_error":
        status = 529
    message = f"Anthropic model {model!r} failed with {where}: {exc.message}"
    retry_after = retry_after_seconds(response_headers(exc))
    return error_for_status(status, message, error_type=error_type, retry_after=retry_after)
