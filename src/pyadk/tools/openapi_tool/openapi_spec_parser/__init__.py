"""OpenAPI spec -> tools: the parser, the operation parser, RestApiTool, the toolset."""

from pyadk.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import (
    OpenApiSpecParser,
    OperationEndpoint,
    ParsedOperation,
)
from pyadk.tools.openapi_tool.openapi_spec_parser.openapi_toolset import OpenAPIToolset
from pyadk.tools.openapi_tool.openapi_spec_parser.operation_parser import OperationParser
from pyadk.tools.openapi_tool.openapi_spec_parser.rest_api_tool import (
    RestApiTool,
    snake_to_lower_camel,
)

__all__ = [
    "OpenAPIToolset",
    "OpenApiSpecParser",
    "OperationEndpoint",
    "OperationParser",
    "ParsedOperation",
    "RestApiTool",
    "snake_to_lower_camel",
]
