"""OpenAPI tools: ``OpenAPIToolset`` turns each operation of an OpenAPI 3 spec into a
``RestApiTool`` that calls the API with httpx (the ``openapi`` extra:
``pip install 'pyadk[openapi]'``)."""

from pyadk.tools.openapi_tool.openapi_spec_parser import OpenAPIToolset, RestApiTool

__all__ = ["OpenAPIToolset", "RestApiTool"]
