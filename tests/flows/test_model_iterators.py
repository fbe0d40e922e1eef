"""A model may return any async iterator of responses, not only an async generator."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import BaseLlm, LlmResponse
from pyadk.testing import TestRunner


class _Responses:
    """An async iterator without ``aclose``."""

    def __init__(self, texts: list[str]) -> None:
        self._texts = iter(texts)

    def __aiter__(self) -> _Responses:
        return self

    async def __anext__(self) -> LlmResponse:
        try:
            text = next(self._texts)
        except StopIteration:
            raise StopAsyncIteration from None
        return LlmResponse(content=types.ModelContent(text))


class IteratorModel(BaseLlm):
    model: str = "iterator"

    def generate_content_async(  # type: ignore[override]
        self, llm_request: object, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        return _Responses(["from an iterator"])


async def test_a_model_returning_an_async_iterator_is_read() -> None:
    runner = TestRunner(LlmAgent(name="root", model=IteratorModel()))

    events = await runner.run("hi")

    assert [e.text for e in events] == ["from an iterator"]


async def test_the_same_with_a_model_timeout() -> None:
    agent = LlmAgent(name="root", model=IteratorModel(), model_timeout=5)

    events = await TestRunner(agent).run("hi")

    assert [e.text for e in events] == ["from an iterator"]
