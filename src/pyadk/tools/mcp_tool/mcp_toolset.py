"""McpToolset: the tools of an MCP server (a stdio subprocess, Streamable HTTP or SSE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from pyadk.tools.base_tool import RequireConfirmation
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.mcp_tool.connection_params import (
    ConnectionParams,
    StdioConnectionParams,
    StdioServerParameters,
)
from pyadk.tools.mcp_tool.mcp_session_manager import HeaderProvider, McpSessionManager
from pyadk.tools.mcp_tool.mcp_tool import McpTool

if TYPE_CHECKING:
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
                    return tools

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
