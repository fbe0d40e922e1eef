"""load_artifacts: lets the model see the session's artifacts."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext


def names_declaration(tool: BaseTool, parameter: str) -> types.FunctionDeclaration:
    """The declaration of a tool whose one parameter is a list of names (strings)."""
    return types.FunctionDeclaration(
        name=tool.name,
        description=tool.description,
        parameters=types.Schema(
            type=types.Type.OBJECT,
            properties={
                parameter: types.Schema(
                    type=types.Type.ARRAY, items=types.Schema(type=types.Type.STRING)
                )
            },
        ),
    )


class LoadArtifactsTool(BaseTool):
    """Lists the session's artifacts in the instruction; when the model calls it with
    names, the artifacts' contents are added to the next request."""

    def __init__(self) -> None:
        super().__init__(
            name="load_artifacts",
            description="Loads the artifacts and adds them to the session.",
            idempotent=True,
        )

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return names_declaration(self, "artifact_names")

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"artifact_names": list(args.get("artifact_names") or [])}

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        names = await tool_context.list_artifacts()
        if not names:
            return
        llm_request.append_instructions(
            [
                "You have these artifacts: "
                + json.dumps(names)
                + ". When the user asks about one of them, call `load_artifacts` with its "
                "name to see its content."
            ]
        )
        last = llm_request.contents[-1] if llm_request.contents else None
        if last is None or not last.parts:
            return
        for part in last.parts:
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            for name in (response.response or {}).get("artifact_names", []):
                artifact = await tool_context.load_artifact(name)
                if artifact is None:
                    continue
                llm_request.contents.append(
                    types.Content(
                        role="user", parts=[types.Part(text=f"Artifact {name} is:"), artifact]
                    )
                )


load_artifacts = LoadArtifactsTool()
"""The ``load_artifacts`` tool instance."""
