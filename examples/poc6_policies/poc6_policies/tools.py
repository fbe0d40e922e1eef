"""Agent A's tools: the PoC's failing tool and a succeeding one."""

from pyadk.tools import FunctionTool


def _failing_tool_impl() -> dict:
    """Performs Agent A's task. In this experiment the task always fails."""
    return {"status": "error", "message": "Simulated failure"}


def _succeeding_tool_impl() -> dict:
    """Performs Agent A's task successfully."""
    return {"status": "ok", "result": "42 records processed"}


failing_tool = FunctionTool(_failing_tool_impl, name="FailingTool")
succeeding_tool = FunctionTool(_succeeding_tool_impl, name="SucceedingTool")
