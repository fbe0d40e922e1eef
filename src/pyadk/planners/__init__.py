"""Planners: guide an LlmAgent's model calls (``LlmAgent(planner=...)``).

``BasePlanner`` is the interface; ``BuiltInPlanner`` turns on the model's own thinking;
``PlanReActPlanner`` asks for a tagged plan, reasoning and final answer. Only the base
class is imported eagerly; the two planners load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk.planners.base_planner import BasePlanner
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.planners.built_in_planner import BuiltInPlanner
    from pyadk.planners.plan_re_act_planner import PlanReActPlanner

__all__ = ["BasePlanner", "BuiltInPlanner", "PlanReActPlanner"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "BuiltInPlanner": ".built_in_planner",
        "PlanReActPlanner": ".plan_re_act_planner",
    },
    globals(),
)
