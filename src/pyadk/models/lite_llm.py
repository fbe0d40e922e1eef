"""LiteLlm: any provider LiteLLM supports, through ``litellm.acompletion``.

``LiteLlm(model="ollama_chat/llama3.2", api_base="http://127.0.0.1:11434")``; extra
keyword arguments go to every ``litellm.acompletion`` call. Also registered for
``litellm/<litellm model>`` names. Importing this module sets
``LITELLM_LOCAL_MODEL_COST_MAP=True`` (unless set) so LiteLLM does not fetch its cost
map from the network at import time.
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator
from typing import Any, ClassVar

from pydantic import Field

from pyadk.models import _openai_messages as wire
from pyadk.models._errors import (
    error_for_status,
    missing_sdk,
    response_headers,
    retry_after_seconds,
    unavailable,
)
from pyadk.models._streaming import ResponseBuilder
from pyadk.models._text_tool_calls import recover_text_tool_calls
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
try:
    import litellm
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise missing_sdk("LiteLlm", "litellm", "litellm") from exc

litellm.suppress_debug_info = True
_PREFIX = "litellm/"


class LiteLlm(BaseLlm):
    """A model reached through LiteLLM, named the LiteLLM way (``provider/model``).

    Requests use the OpenAI chat format with LiteLLM's extensions: Anthropic thinking
    blocks (``thinking_blocks``) and Gemini thought signatures on tool calls are kept on
    the answer's parts and sent back on the next turns. A tool message carries text only:
    media a tool returned (``FunctionResponse.parts``) follows the tool messages in a user
    message, as google-adk's LiteLlm sends it.
    """

    _supported: ClassVar[list[str]] = [r"litellm/.+"]

    additional_args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for every ``litellm.acompletion`` call (api_base, api_key...)."""
    text_tool_calls: bool = True
    """An answer that is only a declared tool's call written as JSON text becomes that call."""

    def __init__(self, model: str, **kwargs: Any) -> None:
        additional = dict(kwargs.pop("additional_args", None) or {})
        known = {k: kwargs.pop(k) for k in list(kwargs) if k in type(self).model_fields}
        additional.update(kwargs)
        super().__init__(model=model, additional_args=additional, **known)

    @property
    def model_name(self) -> str:
        """The LiteLLM model string (without the ``litellm/`` prefix)."""
        return self.model.removeprefix(_PREFIX)

    def _params(self, request: LlmRequest, stream: bool) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": (request.model or self.model).removeprefix(_PREFIX),
            # LiteLLM's own name for reasoning; it forwards the field to the provider.
            "messages": wire.build_messages(
                request,
                adapter="LiteLlm",
                provider_fields=True,
                reasoning_field="reasoning_content",
            ),
            **wire.sampling_params(request.config),
        }
        params.update(wire.tool_and_format_params(request, adapter="LiteLlm"))
        if stream:
            params["stream"] = True
            params["stream_options"] = {"include_usage": True}
        params.update(self.additional_args)
        return params

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        params = self._params(llm_request, stream)
        builder = ResponseBuilder()
        try:
            result = await litellm.acompletion(**params)
            if stream:
                async for chunk in result:
                    for partial in wire.read_chunk(builder, chunk, provider_fields=True):
                        yield partial
            else:
                choice = result.choices[0] if result.choices else None
                if choice is not None:
                    wire.read_message(builder, choice.message, provider_fields=True)
                    builder.finish_reason = wire.finish_reason(choice.finish_reason)
                builder.usage = wire.usage(getattr(result, "usage", None))
                builder.model_version = result.model
        except (litellm.Timeout, litellm.APIConnectionError) as exc:
            raise unavailable("LiteLLM", self.model_name, exc) from exc
        except Exception as exc:
            status = getattr(exc, "status_code", None)
            if type(exc).__module__.startswith(("litellm", "openai")) and isinstance(status, int):
                raise _mapped(exc, self.model_name) from exc
            raise
        final = builder.final()
        if self.text_tool_calls:
            final = recover_text_tool_calls(final, wire.callable_names(params))
        yield final


def _mapped(exc: Exception, model: str) -> Exception:
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc)
    return error_for_status(
        status if isinstance(status, int) else None,
        f"LiteLLM model {model!r} failed with HTTP {status}: {message}",
        retry_after=_retry_after(exc),
    )


def _retry_after(exc: Exception) -> float | None:
    """What the provider's headers ask: LiteLLM keeps them as ``litellm_response_headers``
    (its mapped errors' ``response`` may be one it built itself), else ``response``."""
    for headers in (getattr(exc, "litellm_response_headers", None), response_headers(exc)):
        seconds = retry_after_seconds(headers)
        if seconds is not None:
            return seconds
    return None
