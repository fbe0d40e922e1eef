"""set_model_response: how a model with tools returns its structured final answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from pyadk import types
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.function_declarations import build_function_declaration
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
        )
        self.output_schema = output_schema

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = self.output_schema

        def set_model_response(**kwargs: Any) -> None:  # pragma: no cover - schema source
            """Placeholder whose parameters mirror the output schema."""

        declaration = build_function_declaration(set_model_response, name=self.name)
        declaration.description = self.description
        declaration.parameters = _object_schema(schema)
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            value = self.output_schema.model_validate(args or {})
        except ValidationError as exc:
            return {"error": f"The response does not match the required structure: {exc}"}
        return value.model_dump(mode="json", exclude_none=True)


def _object_schema(model: type[BaseModel]) -> types.Schema:
    """The Schema of a pydantic model's fields (via a function with those parameters)."""

    def carrier() -> None:  # pragma: no cover - only its signature is read
        """Carrier."""

    params = [
        __import__("inspect").Parameter(
            name,
            __import__("inspect").Parameter.KEYWORD_ONLY,
            annotation=field.annotation,
            default=__import__("inspect").Parameter.empty if field.is_required() else field.default,
        )
        for name, field in model.model_fields.items()
    ]
    carrier.__signature__ = __import__("inspect").Signature(params)  # type: ignore[attr-defined]
    carrier.__annotations__ = {n: f.annotation for n, f in model.model_fields.items()}
    declaration = build_function_declaration(carrier)
    return declaration.parameters or types.Schema(type=types.Type.OBJECT)
