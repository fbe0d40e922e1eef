"""Canned responses and request readers in each provider's documented wire format.

A wire builds the HTTP bodies a provider sends (JSON answers, SSE streams, error
bodies) and reads back what an adapter sent (system text, tools, tool results...), so
the conformance suite states each check once for every provider.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pyadk.testing.fixture_server import FixtureResponse

PROMPT_TOKENS = 11
OUTPUT_TOKENS = 7


@dataclass(frozen=True)
class Call:
    """A tool call in a canned answer (``id`` is left out on wires without call ids)."""

    name: str
    args: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class SentResult:
    """A tool result found in a request an adapter sent."""

    id: str | None
    name: str | None
    response: Any


def _halves(text: str) -> list[str]:
    middle = len(text) // 2
    return [text[:middle], text[middle:]]


def _lower_types(schema: Any) -> Any:
    """A schema with genai's upper-case type names lower-cased (JSON Schema style)."""
    if isinstance(schema, list):
        return [_lower_types(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _lower_types(v) for k, v in schema.items()}
    if isinstance(out.get("type"), str):
        out["type"] = out["type"].lower()
    return out


class Wire:
    """The interface every provider wire implements."""

    name: ClassVar[str]
    call_ids: ClassVar[bool] = True
    """Whether the provider identifies tool calls by id."""
    pairs_tool_results: ClassVar[bool] = True
    """Whether the API demands exactly one result right after each call."""
    returns_reasoning: ClassVar[bool] = False
    """Whether answers carry reasoning (:meth:`reasoning`) that the next request sends back."""
    reasoning_signature: ClassVar[str | None] = None
    """The opaque signature :meth:`reasoning` carries, on APIs that sign reasoning."""
    overloaded_status: ClassVar[int] = 503
    rate_limit_retry_after: ClassVar[float | None] = None
    """The seconds the rate-limit answer (``error("rate_limit")``) asks a client to wait
    (its ``Retry-After`` headers); None when it does not say."""

    # canned answers
    def text(self, text: str) -> FixtureResponse:
        raise NotImplementedError

    def text_stream(self, chunks: list[str]) -> FixtureResponse:
        raise NotImplementedError

    def tool_calls(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        raise NotImplementedError

    def tool_calls_stream(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        raise NotImplementedError

    def reasoning(self, thought: str, call: Call, stream: bool = False) -> FixtureResponse:
        raise NotImplementedError

    def error(self, kind: str) -> FixtureResponse:
        """``kind``: rate_limit, overloaded or bad_request. The rate-limit answer carries
        the provider's ``Retry-After`` headers (see :attr:`rate_limit_retry_after`)."""
        raise NotImplementedError

    # reading a sent request
    def system_text(self, body: dict[str, Any]) -> str:
        raise NotImplementedError

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def tool_schemas(self, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Declared tool name -> parameters JSON schema (lower-case types)."""
        raise NotImplementedError

    def tool_choice(self, body: dict[str, Any]) -> tuple[str, list[str] | None]:
        """("auto" | "any" | "none", the names a forced call is limited to, or None)."""
        raise NotImplementedError

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def sent_calls(self, body: dict[str, Any]) -> list[Call]:
        raise NotImplementedError

    def sent_results(self, body: dict[str, Any]) -> list[SentResult]:
        raise NotImplementedError

    def sent_reasoning(self, body: dict[str, Any]) -> list[str]:
        """The reasoning the history sends back: its signatures on APIs that sign
        reasoning, else the reasoning text."""
        raise NotImplementedError
