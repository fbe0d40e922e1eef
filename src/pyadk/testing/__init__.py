"""Public test kit: deterministic models for tests without a network or API key."""

from pyadk.testing.scripted_models import (
    FunctionModel,
    ScriptedModel,
    ScriptExhaustedError,
    Stream,
    function_call,
)
from pyadk.testing.test_runner import TestRunner, simplify_events

__all__ = [
    "FunctionModel",
    "ScriptExhaustedError",
    "ScriptedModel",
    "Stream",
    "TestRunner",
    "function_call",
    "simplify_events",
]
