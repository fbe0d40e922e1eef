"""OpenAPIToolset: every operation of an OpenAPI 3 spec as a :class:`RestApiTool`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pyadk.auth.auth_credential import AuthCredential
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.openapi_tool.auth.auth_helpers import AuthScheme
from pyadk.tools.openapi_tool.openapi_spec_parser._http_client import (
    HttpClients,
    HttpxClientFactory,
    SslVerify,
    Timeout,
)
from pyadk.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import OpenApiSpecParser
from pyadk.tools.openapi_tool.openapi_spec_parser.operation_parser import _MAX_TOOL_NAME_LENGTH
from pyadk.tools.openapi_tool.openapi_spec_parser.rest_api_tool import RestApiTool

if TYPE_CHECKING:
    from pyadk.agents.readonly_context import ReadonlyContext


class OpenAPIToolset(BaseToolset):
    """The operations of an OpenAPI 3 spec (``spec_dict``, or ``spec_str`` in JSON or
    YAML) as tools, one :class:`RestApiTool` per operation, named after its operationId
    in snake_case.

    Requests go to the spec's ``servers[0].url`` (or ``base_url``) through one
    ``httpx.AsyncClient`` per event loop, shared by the tools and closed by
    :meth:`close` (``Runner.close()`` calls it). ``auth_scheme`` / ``auth_credential``
    authenticate every operation (API key, HTTP basic or bearer, OAuth2 / OpenID
    Connect); otherwise an operation uses the scheme its spec declares and needs a
    credential for it. An OAuth2 / OIDC credential holding a client but no token makes
    the first call ask the user's consent (``adk_request_credential``, see
    :class:`RestApiTool`); ``credential_key`` names the token it gets. ``timeout``
    (seconds) bounds each request (default: 10 s to connect, 600 s to read, as
    google-adk). Loopback and private-network servers are refused unless
    ``allow_private_network_access=True`` (as in google-adk).
    """

    def __init__(
        self,
        *,
        spec_dict: dict[str, Any] | None = None,
        spec_str: str | None = None,
        spec_str_type: Literal["json", "yaml"] = "json",
        auth_scheme: AuthScheme | dict[str, Any] | None = None,
        auth_credential: AuthCredential | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
        tool_name_prefix: str | None = None,
        ssl_verify: SslVerify = None,
        header_provider: Callable[[ReadonlyContext], dict[str, str]] | None = None,
        httpx_client_factory: HttpxClientFactory | None = None,
        preserve_property_names: bool = False,
        allow_private_network_access: bool = False,
        base_url: str | None = None,
        timeout: Timeout = None,
        credential_key: str | None = None,
    ) -> None:
        super().__init__(tool_filter=tool_filter)
        self.tool_name_prefix = tool_name_prefix
        if not spec_dict:
            if spec_str is None:
                raise ValueError("OpenAPIToolset needs spec_dict or spec_str.")
            spec_dict = self._load_spec(spec_str, spec_str_type)
        self._clients = HttpClients(
            timeout=timeout, ssl_verify=ssl_verify, factory=httpx_client_factory
        )
        self._unprefixed: dict[str, str] = {}
        self._tools: list[RestApiTool] = self._parse(
            spec_dict,
            header_provider=header_provider,
            preserve_property_names=preserve_property_names,
            allow_private_network_access=allow_private_network_access,
        )
        for tool in self._tools:
            if base_url is not None:
                tool.endpoint = tool.endpoint.model_copy(update={"base_url": base_url})
            if auth_scheme is not None:
                tool.configure_auth_scheme(auth_scheme)
            if auth_credential is not None:
                tool.configure_auth_credential(auth_credential)
            if credential_key:
                tool.configure_credential_key(credential_key)

    def _parse(
        self,
        spec_dict: dict[str, Any],
        *,
        header_provider: Callable[[ReadonlyContext], dict[str, str]] | None,
        preserve_property_names: bool,
        allow_private_network_access: bool,
    ) -> list[RestApiTool]:
        operations = OpenApiSpecParser(preserve_property_names=preserve_property_names).parse(
            spec_dict
        )
        tools = [
            RestApiTool.from_parsed_operation(
                operation,
                header_provider=header_provider,
                allow_private_network_access=allow_private_network_access,
                preserve_property_names=preserve_property_names,
            )
            for operation in operations
        ]
        # operationIds cut to the same 60 characters still get a tool each
        reserved = {t.name for t in tools}
        assigned: set[str] = set()
        for tool in tools:
            tool._clients = self._clients  # one client for the whole toolset
            if tool.name in assigned:
                base, n = tool.name, 2
                while tool.name in assigned or tool.name in reserved:
                    suffix = f"_{n}"
                    tool.name = base[: _MAX_TOOL_NAME_LENGTH - len(suffix)] + suffix
                    n += 1
            assigned.add(tool.name)
            if self.tool_name_prefix:
                unprefixed = tool.name
                tool.name = f"{self.tool_name_prefix}_{unprefixed}"
                self._unprefixed[tool.name] = unprefixed
        return tools

    @staticmethod
    def _load_spec(spec_str: str, spec_type: str) -> dict[str, Any]:
        loaded: Any
        if spec_type == "json":
            try:
                loaded = json.loads(spec_str)
            except json.JSONDecodeError as error:
                raise ValueError(f"Invalid OpenAPI spec: not valid JSON: {error}") from error
        elif spec_type == "yaml":
            try:
                import yaml
            except ImportError as error:
                raise ImportError(
                    "OpenAPIToolset(spec_str_type='yaml') needs pyyaml: "
                    "pip install 'pyadk[openapi]'"
                ) from error
            try:
                loaded = yaml.safe_load(spec_str)
            except yaml.YAMLError as error:
                raise ValueError(f"Invalid OpenAPI spec: not valid YAML: {error}") from error
        else:
            raise ValueError(f"Unsupported spec type: {spec_type!r} (expected 'json' or 'yaml')")
        if not isinstance(loaded, dict):
            raise ValueError("Invalid OpenAPI spec: the document must be an object.")
        return loaded

    def _is_tool_selected(self, tool: BaseTool, readonly_context: ReadonlyContext | None) -> bool:
        if isinstance(self.tool_filter, list) and tool.name in self._unprefixed:
            return self._unprefixed[tool.name] in self.tool_filter or tool.name in self.tool_filter
        return super()._is_tool_selected(tool, readonly_context)

    async def get_tools(  # type: ignore[override]
        self, readonly_context: ReadonlyContext | None = None
    ) -> list[RestApiTool]:
        """The tools ``tool_filter`` selects (names with or without the prefix)."""
        return [t for t in self._tools if self._is_tool_selected(t, readonly_context)]

    def get_tool(self, tool_name: str) -> RestApiTool | None:
        """The tool called ``tool_name``, or None."""
        return next((t for t in self._tools if t.name == tool_name), None)

    async def close(self) -> None:
        """Closes the HTTP client."""
        await self._clients.aclose()


__all__ = ["OpenAPIToolset"]
