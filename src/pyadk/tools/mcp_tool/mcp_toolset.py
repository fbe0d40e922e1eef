"""McpToolset: the tools of an MCP server (a stdio subprocess, Streamable HTTP or SSE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from pyadk.tools.base_tool import RequireConfirmation
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.load_mcp_resource_tool import LoadMcpResourceTool
from pyadk.tools.mcp_tool.connection_params import (
    ConnectionParams,
    StdioConnectionParams,
    StdioServerParameters,
)
from pyadk.tools.mcp_tool.mcp_session_manager import HeaderProvider, McpSessionManager
from pyadk.tools.mcp_tool.mcp_tool import McpTool

if TYPE_CHECKING:
    import mcp_types

    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_schemes import AuthScheme
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.tools.base_tool import BaseTool


class McpToolset(BaseToolset):
    """Offers an MCP server's tools to an agent (``tools=[McpToolset(...)]``).

    The server is started or reached on first use, and the connection is kept until
    :meth:`close` (``Runner.close()`` closes the toolsets of its agents). The tool list
    is read from the server on each model step, so tools the server adds or removes
    show up; ``tool_filter`` (names, or a predicate) narrows it. ``errlog`` (a file with
    a file descriptor) receives a stdio server's stderr (default: this process's stderr).

    ``header_provider`` (HTTP servers) computes extra request headers from the run's
    context, e.g. the signed-in user's token from state: each distinct set of headers gets
    a connection of its own, and at most ``max_connections`` are kept per event loop (the
    least recently used idle one is closed first). ``require_confirmation`` (True, or a
    predicate over a call's arguments) makes the server's tools wait for approval.

    ``auth_scheme`` and ``auth_credential`` (HTTP servers) authenticate the connection:
    a credential that can be sent as it is (an API key, a token) goes in the request
    headers; otherwise, before the tools are listed, the agent finds the user's
    credential (saved, or asked of the user with ``adk_request_credential``: an OAuth2
    consent, an API key) and the connection carries it. ``credential_key`` names the
    credential in the credential service.

    ``use_mcp_resources=True`` adds the ``load_mcp_resource`` tool (kept whatever
    ``tool_filter`` says): the instruction lists the server's resources, and the model
    calls it with names to see their contents. :meth:`list_resources`,
    :meth:`get_resource_info` and :meth:`read_resource` read them from code.
    """

    def __init__(
        self,
        *,
        connection_params: ConnectionParams,
        tool_filter: ToolPredicate | list[str] | None = None,
        errlog: TextIO | None = None,
        header_provider: HeaderProvider | None = None,
        max_connections: int = 8,
        require_confirmation: RequireConfirmation = False,
        auth_scheme: AuthScheme | None = None,
        auth_credential: AuthCredential | None = None,
        credential_key: str | None = None,
        use_mcp_resources: bool = False,
    ) -> None:
        super().__init__(tool_filter=tool_filter)
        self.auth_scheme = auth_scheme
        self.auth_credential = auth_credential
        self._auth_config: AuthConfig | None = None
        if auth_scheme is not None:
            from pyadk.auth.auth_tool import AuthConfig

            if isinstance(connection_params, StdioConnectionParams | StdioServerParameters):
                raise ValueError("auth_scheme needs an HTTP server; a stdio server has no headers.")
            self._auth_config = AuthConfig(
                auth_scheme=auth_scheme,
                raw_auth_credential=auth_credential,
                credential_key=credential_key,
            )
            header_provider = _with_auth_headers(header_provider, self._auth_config)
        self.connection_params = connection_params
        self.require_confirmation = require_confirmation
        """Given to every tool of the server: True, or a predicate over a call's arguments."""
        self.use_mcp_resources = use_mcp_resources
        """Whether the ``load_mcp_resource`` tool is among the toolset's tools."""
        self._session_manager = McpSessionManager(
            connection_params,
            errlog=errlog,
            header_provider=header_provider,
            max_connections=max_connections,
        )

    def get_auth_config(self) -> AuthConfig | None:
        """The credential the server's connection needs (None without ``auth_scheme``)."""
        return self._auth_config

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The server's tools (every page of its list)."""
        tools: list[BaseTool] = []
        cursor: str | None = None
        async with self._session_manager.session(readonly_context) as client:
            while True:
                listed = await client.list_tools(cursor=cursor)
                tools.extend(
                    McpTool(
                        mcp_tool=tool,
                        session_manager=self._session_manager,
                        require_confirmation=self.require_confirmation,
                    )
                    for tool in listed.tools
                )
                cursor = listed.next_cursor
                if not cursor:
                    break
        if self.use_mcp_resources:
            tools.append(LoadMcpResourceTool(mcp_toolset=self))
        return tools

    def _is_tool_selected(self, tool: BaseTool, readonly_context: ReadonlyContext | None) -> bool:
        if isinstance(tool, LoadMcpResourceTool):  # asked for with use_mcp_resources
            return True
        return super()._is_tool_selected(tool, readonly_context)

    async def list_resources(self, readonly_context: ReadonlyContext | None = None) -> list[str]:
        """The names of the server's resources (every page of its list)."""
        return [resource.name for resource in await self._list_mcp_resources(readonly_context)]

    async def get_resource_info(
        self, name: str, readonly_context: ReadonlyContext | None = None
    ) -> dict[str, Any]:
        """The server's description of resource ``name`` as JSON data (``uri``, ``name``,
        ``mimeType``, ``description``, ...). Raises ValueError for an unknown name."""
        resource = self._find_resource(await self._list_mcp_resources(readonly_context), name)
        return resource.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def read_resource(
        self, name: str, readonly_context: ReadonlyContext | None = None
    ) -> list[mcp_types.TextResourceContents | mcp_types.BlobResourceContents]:
        """The contents of resource ``name`` (MCP ``TextResourceContents`` with ``text``,
        ``BlobResourceContents`` with base64 ``blob``). Raises ValueError for an unknown
        name."""
        resources = await self._list_mcp_resources(readonly_context)
        return await self._read_mcp_resource(self._find_resource(resources, name), readonly_context)

    async def _list_mcp_resources(
        self, readonly_context: ReadonlyContext | None
    ) -> list[mcp_types.Resource]:
        resources: list[mcp_types.Resource] = []
        cursor: str | None = None
        async with self._session_manager.session(readonly_context) as client:
            while True:
                listed = await client.list_resources(cursor=cursor)
                resources.extend(listed.resources)
                cursor = listed.next_cursor
                if not cursor:
                    return resources

    def _find_resource(self, resources: list[mcp_types.Resource], name: str) -> mcp_types.Resource:
        for resource in resources:
            if resource.name == name:
                return resource
        available = ", ".join(repr(r.name) for r in resources) or "none"
        raise ValueError(
            f"MCP server {self._session_manager.server_label!r} has no resource named "
            f"{name!r}; its resources: {available}."
        )

    async def _read_mcp_resource(
        self, resource: mcp_types.Resource, readonly_context: ReadonlyContext | None
    ) -> list[mcp_types.TextResourceContents | mcp_types.BlobResourceContents]:
        async with self._session_manager.session(readonly_context) as client:
            result = await client.read_resource(resource.uri)
        return list(result.contents)

    async def close(self) -> None:
        """Closes the connection (a stdio server's process ends with it)."""
        await self._session_manager.close()

    def __repr__(self) -> str:
        return f"McpToolset({self._session_manager.server_label!r})"


def _with_auth_headers(provider: HeaderProvider | None, config: AuthConfig) -> HeaderProvider:
    """``provider``'s headers plus those of the credential resolved for ``config`` in the
    run (or of the configured credential, when it can be sent as it is)."""
    from pyadk.auth.auth_headers import build_auth_headers

    def headers(context: ReadonlyContext) -> dict[str, str]:
        found = dict(provider(context)) if provider is not None else {}
        credential = context.get_credential(config.credential_key or "")
        if credential is None:
            credential = config.exchanged_auth_credential or config.raw_auth_credential
        found.update(build_auth_headers(credential, config.auth_scheme))
        return found

    return headers


MCPToolset = McpToolset
"""google-adk's older name."""

__all__ = ["MCPToolset", "McpToolset"]
