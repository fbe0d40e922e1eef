"""set_model_response: how a model with tools returns its structured final answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from pyadk import types
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.function_declarations import schema_for_model
from pyadk.tools.tool_context import ToolContext

SET_MODEL_RESPONSE = "set_model_response"


class SetModelResponseTool(BaseTool):
    """A tool whose arguments are the agent's ``output_schema``; calling it ends the turn
    with those arguments, validated, as the final answer."""

    def __init__(self, output_schema: type[BaseModel]) -> None:
        super().__init__(
            name=SET_MODEL_RESPONSE,
            description=(
                "Set your final response. Call this once, as your last step, with the "
                "answer in the required structure."
            ),
            idempotent=True,
        )
        self.output_schema = output_schema

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=schema_for_model(self.output_schema),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            value = self.output_schema.model_validate(args or {})
        except ValidationError as exc:
            return {"error": f"The response does not match the required structure: {exc}"}
        return value.model_dump(mode="json", exclude_none=True)
