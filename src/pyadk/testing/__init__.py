"""Public test kit: deterministic models for tests without a network or API key, and
the model-adapter conformance suite.

``ModelConformance`` and the wires (``OpenAIWire``, ``AnthropicWire``, ``GeminiWire``)
need pytest and are imported on first use; everything else needs nothing extra.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from pyadk.testing.assertions import assert_tool_calls, tool_calls
from pyadk.testing.cassette import (
    CassetteLlm,
    CassetteMissError,
    cassette_llm,
    cassette_path,
)
from pyadk.testing.fixture_server import (
    FixtureResponse,
    FixtureServer,
    RecordedRequest,
    json_response,
    sse_response,
)
from pyadk.testing.scripted_live_model import (
    ScriptedLiveConnection,
    ScriptedLiveModel,
    ServerClose,
    go_away,
    live_responses,
    resumption_update,
)
from pyadk.testing.scripted_models import (
    FunctionModel,
    ScriptedModel,
    ScriptExhaustedError,
    Stream,
    function_call,
)
from pyadk.testing.test_runner import TestRunner, simplify_events

if TYPE_CHECKING:
    from pyadk.testing.model_conformance import (
        AnthropicWire,
        Call,
        GeminiWire,
        ModelConformance,
        OpenAIWire,
        SentResult,
        Wire,
    )

_CONFORMANCE = (
    "AnthropicWire",
    "Call",
    "GeminiWire",
    "ModelConformance",
    "OpenAIWire",
    "SentResult",
    "Wire",
)


def __getattr__(name: str) -> Any:
    if name in _CONFORMANCE:
        module = "pyadk.testing.model_conformance"
        if module not in sys.modules and "pytest" in sys.modules:
            # Failures in users' test runs then show the compared values.
            sys.modules["pytest"].register_assert_rewrite(module)
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AnthropicWire",
    "Call",
    "CassetteLlm",
    "CassetteMissError",
    "FixtureResponse",
    "FixtureServer",
    "FunctionModel",
    "GeminiWire",
    "ModelConformance",
    "OpenAIWire",
    "RecordedRequest",
    "ScriptExhaustedError",
    "ScriptedLiveConnection",
    "ScriptedLiveModel",
    "ScriptedModel",
    "SentResult",
    "ServerClose",
    "Stream",
    "TestRunner",
    "Wire",
    "assert_tool_calls",
    "cassette_llm",
    "cassette_path",
    "function_call",
    "go_away",
    "json_response",
    "live_responses",
    "resumption_update",
    "simplify_events",
    "sse_response",
    "tool_calls",
]
