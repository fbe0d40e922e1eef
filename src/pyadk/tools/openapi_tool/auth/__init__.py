"""Auth helpers of the OpenAPI tools (google-adk's ``openapi_tool.auth``)."""

from pyadk.tools.openapi_tool.auth import auth_helpers

__all__ = ["auth_helpers"]
