"""Planners: guide an LlmAgent's model calls (``LlmAgent(planner=...)``).

``BasePlanner`` is the interface; ``BuiltInPlanner`` turns on the model's own thinking;
``PlanReActPlanner`` asks for a tagged plan, reasoning and final answer. The two
planners are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pyadk.planners.base_planner import BasePlanner

if TYPE_CHECKING:
    from pyadk.planners.built_in_planner import BuiltInPlanner
    from pyadk.planners.plan_re_act_planner import PlanReActPlanner

__all__ = ["BasePlanner", "BuiltInPlanner", "PlanReActPlanner"]

_LAZY = {
    "BuiltInPlanner": "pyadk.planners.built_in_planner",
    "PlanReActPlanner": "pyadk.planners.plan_re_act_planner",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
