"""Tool fakes for eval runs: answers given in the eval case instead of running the tool
(a weather API, a payment service), so an evaluation scores the agent's decisions
without side effects or network."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from pyadk.evaluation.common import EvalBaseModel
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.evaluation.eval_case import EvalCase
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext


class ToolFake(EvalBaseModel):
    """The result a call of ``name`` gets instead of running the tool: for any
    arguments, or only for ``args`` when given. A pyadk extension of the eval format
    (``toolFakes`` of an eval case)."""

    name: str
    args: dict[str, Any] | None = None
    response: dict[str, Any] = Field(default_factory=dict)


def recorded_fakes(eval_case: EvalCase) -> list[ToolFake]:
    """Fakes from the results recorded in the case's expected invocations: each
    expected call (name and arguments) answered by the recorded response with its id,
    or at its position when the ids do not match."""
    from pyadk.evaluation.eval_case import IntermediateData

    fakes: list[ToolFake] = []
    for invocation in eval_case.conversation:
        data = invocation.intermediate_data
        if not isinstance(data, IntermediateData) or not data.tool_responses:
            continue
        by_id = {r.id: r for r in data.tool_responses if r.id}
        for index, call in enumerate(data.tool_uses):
            response = by_id.get(call.id) if call.id else None
            if response is None and index < len(data.tool_responses):
                response = data.tool_responses[index]
            if response is not None and response.name == call.name:
                fakes.append(
                    ToolFake(
                        name=call.name or "", args=call.args or {}, response=response.response or {}
                    )
                )
    return fakes


class ToolFakesPlugin(BasePlugin):
    """Answers tool calls from :attr:`fakes` (the first that matches: the most specific
    ``args`` first); calls no fake matches run the real tool."""

    def __init__(self) -> None:
        super().__init__(name="eval_tool_fakes")
        self.fakes: list[ToolFake] = []

    def use(self, fakes: list[ToolFake]) -> None:
        """The fakes of the case about to run (those with ``args`` are tried first)."""
        self.fakes = sorted(fakes, key=lambda fake: fake.args is None)

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        for fake in self.fakes:
            if fake.name == tool.name and (fake.args is None or fake.args == tool_args):
                return dict(fake.response)
        return None
