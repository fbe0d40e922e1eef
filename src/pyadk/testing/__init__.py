"""Public test kit: deterministic models for tests without a network or API key."""

from pyadk.testing.scripted_models import (
    FunctionModel,
    ScriptedModel,
    ScriptExhaustedError,
    Stream,
    function_call,
)

__all__ = ["FunctionModel", "ScriptExhaustedError", "ScriptedModel", "Stream", "function_call"]
