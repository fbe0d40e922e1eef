"""The model's arguments -> the keyword arguments of ``httpx.AsyncClient.request``."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

from pyadk.tools.openapi_tool.common.common import ApiParameter
from pyadk.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import OperationEndpoint
from pyadk.tools.openapi_tool.openapi_spec_parser.operation_parser import OperationParser
from pyadk.version import __version__

_PATH_TEMPLATE = re.compile(r"\{([^{}]+)\}")


def to_param_string(value: Any) -> str:
    """A path, header or cookie value as text (OpenAPI's ``simple`` style): booleans as
    ``true``/``false``, arrays and objects comma-joined."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(to_param_string(item) for item in value if item is not None)
    if isinstance(value, dict):
        return ",".join(f"{k},{to_param_string(v)}" for k, v in value.items() if v is not None)
    return str(value)


def encode_path_param(name: str, value: str) -> str:
    """``value`` percent-encoded as one path segment; ``.``/``..`` segments refused."""
    for segment in value.replace("\\", "/").split("/"):
        if segment in (".", ".."):
            raise ValueError(f"Path parameter {name!r} must not contain '.' or '..' segments.")
    return quote(value, safe="")


class RequestBuilder:
    """Builds one request of an operation. Raises ``ValueError`` (shown to the model)
    for arguments that cannot make a request (a missing path parameter)."""

    def __init__(
        self,
        *,
        tool_name: str,
        endpoint: OperationEndpoint,
        parser: OperationParser,
        default_headers: dict[str, str] | None = None,
        extra_headers: dict[str, str] | None = None,
    ) -> None:
        self._tool_name = tool_name
        self._endpoint = endpoint
        self._parser = parser
        self._default_headers = default_headers or {}
        self._extra_headers = extra_headers or {}

    def build(self, parameters: list[ApiParameter], args: dict[str, Any]) -> dict[str, Any]:
        """``method``, ``url``, ``params``, ``headers`` (cookies in ``Cookie``), the body."""
        path_values: dict[str, str] = {}
        query: dict[str, Any] = {}
        headers = {"User-Agent": f"pyadk/{__version__} (tool: {self._tool_name})"}
        headers.update(self._extra_headers)
        cookies: dict[str, str] = {}
        by_name = {p.py_name: p for p in parameters}
        for name, value in args.items():
            param = by_name.get(name)
            if param is None or value is None:
                continue  # not an argument of this operation
            location, original = param.param_location, param.original_name
            if location == "path":
                path_values[original] = encode_path_param(original, to_param_string(value))
            elif location == "query":
                query[original] = value
            elif location == "header":
                headers[original] = to_param_string(value)
            elif location == "cookie":
                cookies[original] = to_param_string(value)
        url = self._url(parameters, path_values, query)
        request: dict[str, Any] = {
            "method": self._endpoint.method.upper(),
            "url": url,
            "params": query,
            "headers": headers,
        }
        if cookies:  # a header, not per-request cookies= (the client is shared)
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        request.update(self._body(parameters, args, headers))
        for key, value in self._default_headers.items():
            headers.setdefault(key, value)
        return request

    def _url(
        self, parameters: list[ApiParameter], path_values: dict[str, str], query: dict[str, Any]
    ) -> str:
        base = self._endpoint.base_url.rstrip("/")

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in path_values:
                return path_values[name]
            py_name = next(
                (
                    p.py_name
                    for p in parameters
                    if p.param_location == "path" and p.original_name == name
                ),
                name,
            )
            raise ValueError(f"Missing required path parameter '{py_name}'.")

        parts = urlsplit(base + _PATH_TEMPLATE.sub(fill, self._endpoint.path))
        # a query written into the path template itself joins the parameters
        for key, values in parse_qs(parts.query).items():
            query.setdefault(key, values[0] if len(values) == 1 else values)
        return urlunsplit(parts._replace(query="", fragment=""))

    def _body(
        self, parameters: list[ApiParameter], args: dict[str, Any], headers: dict[str, str]
    ) -> dict[str, Any]:
        media_type = self._parser.body_media_type
        if media_type is None:
            return {}
        body_params = [p for p in parameters if p.param_location == "body"]
        data: Any
        if self._parser.body_is_object:
            data = {p.original_name: args[p.py_name] for p in body_params if p.py_name in args}
        else:
            data = next((args.get(p.py_name) for p in body_params), None)
        if data is None:
            return {}
        base = media_type.split(";", 1)[0].strip().lower()
        if base != "multipart/form-data":
            headers["Content-Type"] = media_type
        if base == "application/json" or base.endswith("+json"):
            return {"json": data}
        if base == "application/x-www-form-urlencoded":
            return {"data": data}
        if base == "multipart/form-data":
            return {"files": data}
        if isinstance(data, str | bytes):
            return {"content": data}
        return {"json": data}


__all__ = ["RequestBuilder", "encode_path_param", "to_param_string"]
