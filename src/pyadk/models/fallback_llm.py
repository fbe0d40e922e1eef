"""FallbackLlm: a chain of models; when one is rate-limited or down, the next answers."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from pydantic import Field, PrivateAttr, field_validator, model_validator

from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.registry import LLMRegistry

logger = logging.getLogger(__name__)


def _worth_falling_back(error: BaseException) -> bool:
    """Rate limits, overload, timeouts and unreachable services; not a bad request."""
    return bool(getattr(error, "retryable", False)) or isinstance(
        error, TimeoutError | ConnectionError
    )


class AllModelsFailedError(Exception):
    """Every model of a :class:`FallbackLlm` failed; ``errors`` holds each one's error."""

    def __init__(self, errors: list[tuple[str, BaseException]]) -> None:
        self.errors = errors
        tried = "; ".join(f"{name}: {type(e).__name__}: {e}" for name, e in errors)
        super().__init__(f"Every model failed ({tried}).")
        # Retry policies decide on the last error's kind (a rate limit stays retryable).
        self.retryable = bool(errors) and _worth_falling_back(errors[-1][1])


class FallbackLlm(BaseLlm):
    """Asks ``models`` in order (model objects, or names the registry resolves).

    A model that fails before it produced any response, with an error worth falling
    back on (by default a rate limit, an overloaded or unreachable service, a timeout;
    ``fall_back_on`` decides instead), hands the same request to the next. Once a
    model has streamed part of an answer, its error propagates: a half answer is never
    followed by another model's. With ``cooldown`` (seconds), a model that failed is
    asked last for that long (or for as long as its ``Retry-After`` asked, when longer),
    so a rate-limited primary is not asked on every call. Each
    response's ``model_version`` names the model that answered (when its adapter does
    not). When all fail: :class:`AllModelsFailedError` with every error.
    """

    model: str = ""
    models: list[BaseLlm] = Field(min_length=1)
    fall_back_on: Callable[[BaseException], bool] | None = None
    cooldown: float | None = Field(default=None, gt=0)
    _resting_until: dict[int, float] = PrivateAttr(default_factory=dict)

    @field_validator("models", mode="before")
    @classmethod
    def _resolve_names(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [LLMRegistry.new_llm(m) if isinstance(m, str) else m for m in value]
        return value

    @model_validator(mode="after")
    def _named_after_the_first(self) -> FallbackLlm:
        if not self.model:
            self.model = self.models[0].model
        return self

    def _falls_back(self, error: BaseException) -> bool:
        decide = self.fall_back_on or _worth_falling_back
        return bool(decide(error))

    def _order(self) -> list[int]:
        """Model indexes to try: resting ones last (still tried if all are resting)."""
        now = time.monotonic()
        ready = [i for i in range(len(self.models)) if self._resting_until.get(i, 0) <= now]
        return ready + [i for i in range(len(self.models)) if i not in ready]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        errors: list[tuple[str, BaseException]] = []
        for index in self._order():
            llm = self.models[index]
            request = llm_request.model_copy(update={"model": llm.model})
            produced = False
            responses = llm.generate_content_async(request, stream=stream)
            try:
                async for response in responses:
                    produced = True
                    if response.model_version is None:
                        response.model_version = llm.model
                    yield response
                self._resting_until.pop(index, None)
                return
            except Exception as error:
                if produced or not self._falls_back(error):
                    raise
                errors.append((llm.model, error))
                if self.cooldown is not None:  # at least as long as the provider asked
                    rest = max(self.cooldown, getattr(error, "retry_after", None) or 0.0)
                    self._resting_until[index] = time.monotonic() + rest
                logger.warning("Model %r failed (%s); falling back", llm.model, error)
            finally:
                close = getattr(responses, "aclose", None)
                if close is not None:
                    await close()
        raise AllModelsFailedError(errors)

    async def close(self) -> None:
        """Closes every model of the chain."""
        for llm in self.models:
            await llm.close()
