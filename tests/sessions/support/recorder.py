"""A model for the session tests that answers ``reply N`` and records what it was sent."""

from __future__ import annotations

from pyadk import types
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import FunctionModel


class Recorder:
    """Makes models that answer ``reply N`` (N counts the requests) and keeps the
    requests, so a test can check the history a turn sent."""

    def __init__(self) -> None:
        self.requests: list[LlmRequest] = []

    def model(self) -> FunctionModel:
        def answer(request: LlmRequest) -> str:
            self.requests.append(request)
            return f"reply {len(self.requests)}"

        return FunctionModel(answer)

    def contents(self, index: int = -1) -> list[types.Content]:
        """The contents of a request (the last one by default)."""
        return self.requests[index].contents

    def history(self, index: int = -1) -> list[str]:
        """The texts of a request's contents, in order."""
        return [p.text or "" for c in self.contents(index) for p in c.parts or []]
