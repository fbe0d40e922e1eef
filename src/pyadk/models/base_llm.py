"""BaseLlm: the contract every model adapter implements."""

from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict

from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.utils.attribute_lookup import PlainAttributeLookup

if TYPE_CHECKING:
    from pyadk.models.base_llm_connection import BaseLlmConnection


class BaseLlm(PlainAttributeLookup, BaseModel):
    """A model. Subclasses implement :meth:`generate_content_async`.

    Without streaming it yields one response; with ``stream=True`` it yields partial
    responses (``partial=True``) followed by one aggregated, non-partial response.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    model: str
    """The model name, e.g. ``gemini-2.5-flash``."""

    _supported: ClassVar[list[str]] = []

    @classmethod
    def supported_models(cls) -> list[str]:
        """Regular expressions of the model names this class serves (for LLMRegistry)."""
        return list(cls._supported)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Generates a response (or a stream of them) for ``llm_request``."""
        raise NotImplementedError(f"{type(self).__name__} must implement generate_content_async")
        yield  # pragma: no cover - makes this an async generator

    def connect(self, llm_request: LlmRequest) -> "AbstractAsyncContextManager[BaseLlmConnection]":
        """Opens a live (bidirectional) connection for ``llm_request``: ``async with
        llm.connect(request) as connection``. Models without a live API raise
        NotImplementedError."""
        raise NotImplementedError(
            f"{type(self).__name__} model {self.model!r} has no live connection: "
            "Runner.run_live needs a model that implements connect() (e.g. "
            "pyadk.testing.ScriptedLiveModel, or Gemini with a live model)."
        )

    async def close(self) -> None:
        """Releases resources held by the model client (no-op by default)."""
