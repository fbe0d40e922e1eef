"""An OpenAPI 3 document -> one :class:`ParsedOperation` per operation."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from pyadk.auth.auth_credential import AuthCredential
from pyadk.tools.openapi_tool.auth.auth_helpers import AuthScheme, dict_to_auth_scheme
from pyadk.tools.openapi_tool.common.common import ApiParameter, to_snake_case
from pyadk.tools.openapi_tool.openapi_spec_parser._ref_resolver import resolve_references
from pyadk.tools.openapi_tool.openapi_spec_parser.operation_parser import (
    OperationParser,
    required_scheme_name,
)

_METHODS = ("get", "post", "put", "delete", "patch", "head", "options", "trace")


class OperationEndpoint(BaseModel):
    """Where an operation is sent: the server URL, the path template and the method."""

    base_url: str
    path: str
    method: str


class ParsedOperation(BaseModel):
    """An operation ready to become a :class:`RestApiTool`."""

    name: str
    description: str
    endpoint: OperationEndpoint
    operation: dict[str, Any]
    parameters: list[ApiParameter]
    auth_scheme: AuthScheme | None = None
    auth_credential: AuthCredential | None = None
    additional_context: Any | None = None


class OpenApiSpecParser:
    """Parses an OpenAPI 3 document (a dict): inlines its ``$ref``s and collects its
    operations. Raises ``ValueError`` naming the problem for a document it cannot use."""

    def __init__(self, *, preserve_property_names: bool = False) -> None:
        self._preserve_property_names = preserve_property_names

    def parse(self, openapi_spec_dict: dict[str, Any]) -> list[ParsedOperation]:
        """One :class:`ParsedOperation` per operation of every path, in document order."""
        _check_document(openapi_spec_dict)
        return self._collect_operations(resolve_references(openapi_spec_dict))

    def _collect_operations(self, spec: dict[str, Any]) -> list[ParsedOperation]:
        base_url = _server_url(spec)
        global_scheme = required_scheme_name(spec.get("security"))
        components = spec.get("components")
        schemes = components.get("securitySchemes") if isinstance(components, dict) else None
        operations: list[ParsedOperation] = []
        for path, path_item in (spec.get("paths") or {}).items():
            if path_item is None:
                continue
            if not isinstance(path_item, dict):
                raise ValueError(f"Invalid OpenAPI spec: path {path!r} is not an object.")
            for method in _METHODS:
                operation = path_item.get(method)
                if operation is None:
                    continue
                where = f"{method.upper()} {path}"
                if not isinstance(operation, dict):
                    raise ValueError(f"Invalid OpenAPI spec: operation {where} is not an object.")
                operation = _with_path_parameters(dict(operation), path_item)
                operation.setdefault("operationId", to_snake_case(f"{path}_{method}"))
                parser = OperationParser(
                    operation,
                    preserve_property_names=self._preserve_property_names,
                    where=where,
                )
                scheme_name = parser.get_auth_scheme_name()
                if not scheme_name and operation.get("security") is None:
                    scheme_name = global_scheme
                operations.append(
                    ParsedOperation(
                        name=parser.get_function_name(),
                        description=str(
                            operation.get("description") or operation.get("summary") or ""
                        ),
                        endpoint=OperationEndpoint(base_url=base_url, path=path, method=method),
                        operation=operation,
                        parameters=parser.get_parameters(),
                        auth_scheme=_scheme(schemes, scheme_name, where),
                        additional_context={},
                    )
                )
        return operations


def _check_document(spec: Any) -> None:
    if not isinstance(spec, dict):
        raise ValueError(f"Invalid OpenAPI spec: expected an object, got {type(spec).__name__}.")
    if "swagger" in spec:
        raise ValueError(
            f"Invalid OpenAPI spec: Swagger {spec['swagger']} documents are not supported; "
            "convert it to OpenAPI 3."
        )
    if "openapi" not in spec and "paths" not in spec:
        raise ValueError(
            "Invalid OpenAPI spec: no 'openapi' version and no 'paths' (is this an OpenAPI 3 "
            "document?)."
        )
    if not isinstance(spec.get("paths", {}), dict):
        raise ValueError("Invalid OpenAPI spec: 'paths' must be an object.")


def _server_url(spec: dict[str, Any]) -> str:
    """``servers[0].url`` with its variables set to their defaults ('' if no server)."""
    servers = spec.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return ""
    server = servers[0]
    variables = server.get("variables")
    if not isinstance(variables, dict):
        variables = {}

    def default(match: re.Match[str]) -> str:
        variable = variables.get(match.group(1))
        if isinstance(variable, dict) and "default" in variable:
            return str(variable["default"])
        return match.group(0)

    return re.sub(r"\{([^}]+)\}", default, str(server.get("url") or ""))


def _with_path_parameters(operation: dict[str, Any], path_item: dict[str, Any]) -> dict[str, Any]:
    """The operation with its path item's parameters (an operation's own one wins)."""
    own = list(operation.get("parameters") or [])
    overridden = {(p.get("name"), p.get("in")) for p in own if isinstance(p, dict)}
    shared = [
        p
        for p in path_item.get("parameters") or []
        if not isinstance(p, dict) or (p.get("name"), p.get("in")) not in overridden
    ]
    operation["parameters"] = own + shared
    return operation


def _scheme(schemes: Any, name: str, where: str) -> AuthScheme | None:
    if not name:
        return None
    scheme = schemes.get(name) if isinstance(schemes, dict) else None
    if not isinstance(scheme, dict):
        raise ValueError(
            f"Invalid OpenAPI spec: {where} requires security scheme {name!r}, which "
            "components.securitySchemes does not define."
        )
    try:
        return dict_to_auth_scheme(scheme)
    except ValueError as error:
        raise ValueError(f"Invalid OpenAPI spec: security scheme {name!r}: {error}") from error


__all__ = ["OpenApiSpecParser", "OperationEndpoint", "ParsedOperation"]
