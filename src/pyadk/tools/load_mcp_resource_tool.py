"""load_mcp_resource: lets the model read the resources of an MCP server.

``McpToolset(..., use_mcp_resources=True)`` adds it to the server's tools.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.load_artifacts_tool import names_declaration

if TYPE_CHECKING:
    import mcp_types

    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.mcp_tool.mcp_toolset import McpToolset
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)


class LoadMcpResourceTool(BaseTool):
    """Lists ``mcp_toolset``'s resources in the instruction; when the model calls it with
    ``resource_names``, their contents go into the next request (text as text parts,
    binary data as inline data), for that request only.

    A listing or a read that fails is logged and left out: the turn goes on.
    """

    def __init__(self, mcp_toolset: McpToolset) -> None:
        super().__init__(
            name="load_mcp_resource",
            description=(
                "Loads resources of the MCP server by name so that you can read them. "
                "Call it when you need a resource's content."
            ),
            idempotent=True,
        )
        self._mcp_toolset = mcp_toolset

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return names_declaration(self, "resource_names")

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        names = args.get("resource_names") or []
        return {
            "resource_names": [names] if isinstance(names, str) else list(names),
            "status": (
                "The resources' contents are shown to you in the next step only; "
                "call load_mcp_resource again to see them later."
            ),
        }

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        toolset = self._mcp_toolset
        try:
            resources = await toolset._list_mcp_resources(tool_context)
        except Exception as error:  # the turn goes on without the resources
            logger.warning("Could not list the resources of %r: %s", toolset, error)
            return
        if resources:
            names = [resource.name for resource in resources]
            llm_request.append_instructions(
                [
                    "You can read these MCP resources: "
                    + json.dumps(names)
                    + ". Before answering a question about one of them, call "
                    "`load_mcp_resource` with its name to see its content."
                ]
            )
        last = llm_request.contents[-1] if llm_request.contents else None
        if last is None or not last.parts:
            return
        for part in last.parts:
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            for name in (response.response or {}).get("resource_names") or []:
                try:
                    resource = toolset._find_resource(resources, str(name))
                    contents = await toolset._read_mcp_resource(resource, tool_context)
                except Exception as error:
                    logger.warning("Could not read MCP resource %r: %s", name, error)
                    continue
                parts = [types.Part(text=f"Resource {name} is:")]
                parts.extend(_content_part(content, str(name)) for content in contents)
                llm_request.contents.append(types.Content(role="user", parts=parts))


def _content_part(
    content: mcp_types.TextResourceContents | mcp_types.BlobResourceContents, name: str
) -> types.Part:
    """A text part for a text resource, an inline-data part for a binary one."""
    text = getattr(content, "text", None)
    if isinstance(text, str):
        return types.Part(text=text)
    blob = getattr(content, "blob", None)
    if not isinstance(blob, str):
        return types.Part(text=f"[resource {name} has content of an unknown kind]")
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return types.Part(text=f"[resource {name} has binary content that is not valid base64]")
    mime_type = content.mime_type or "application/octet-stream"
    return types.Part.from_bytes(data=data, mime_type=mime_type)


__all__ = ["LoadMcpResourceTool"]
