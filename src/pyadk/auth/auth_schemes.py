"""Security schemes, as OpenAPI 3 declares them (the models google-adk takes from FastAPI).

Field names follow the OpenAPI document (``bearerFormat``, ``openIdConnectUrl``); ``type``
and ``in`` are ``type_`` and ``in_`` in Python. Any other pydantic model with the same JSON
(e.g. ``fastapi.openapi.models.APIKey``) is accepted where a scheme is expected.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class SecuritySchemeType(StrEnum):
    """The ``type`` of an OpenAPI security scheme."""

    apiKey = "apiKey"  # OpenAPI's spelling, as in google-adk
    http = "http"
    oauth2 = "oauth2"
    openIdConnect = "openIdConnect"


AuthSchemeType = SecuritySchemeType
"""google-adk's name for :class:`SecuritySchemeType`."""


class APIKeyIn(StrEnum):
    """Where an API key goes."""

    query = "query"
    header = "header"
    cookie = "cookie"


class SecurityBase(BaseModel):
    """Base of every security scheme: its ``type`` and an optional description."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type_: SecuritySchemeType = Field(alias="type")
    description: str | None = None


class APIKey(SecurityBase):
    """An API key sent in a header, a query parameter or a cookie called ``name``."""

    type_: SecuritySchemeType = Field(default=SecuritySchemeType.apiKey, alias="type")
    in_: APIKeyIn = Field(alias="in")
    name: str


class HTTPBase(SecurityBase):
    """An HTTP ``Authorization`` scheme (``basic``, ``bearer``...)."""

    type_: SecuritySchemeType = Field(default=SecuritySchemeType.http, alias="type")
    scheme: str


class HTTPBearer(HTTPBase):
    """HTTP bearer tokens (``Authorization: Bearer <token>``)."""

    scheme: str = "bearer"
    bearerFormat: str | None = None


class OAuthFlows(BaseModel):
    """The OAuth2 flows a scheme offers (each an OpenAPI flow object, as a dict)."""

    model_config = ConfigDict(extra="allow")

    implicit: dict[str, Any] | None = None
    password: dict[str, Any] | None = None
    clientCredentials: dict[str, Any] | None = None
    authorizationCode: dict[str, Any] | None = None


class OAuth2(SecurityBase):
    """OAuth2. pyadk sends a credential's access token; it runs no consent flow."""

    type_: SecuritySchemeType = Field(default=SecuritySchemeType.oauth2, alias="type")
    flows: OAuthFlows = Field(default_factory=OAuthFlows)


class OpenIdConnect(SecurityBase):
    """OpenID Connect, by discovery URL."""

    type_: SecuritySchemeType = Field(default=SecuritySchemeType.openIdConnect, alias="type")
    openIdConnectUrl: str


class OpenIdConnectWithConfig(SecurityBase):
    """OpenID Connect with its endpoints given directly."""

    type_: SecuritySchemeType = Field(default=SecuritySchemeType.openIdConnect, alias="type")
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str | None = None
    revocation_endpoint: str | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    scopes: list[str] | None = None


AuthScheme = APIKey | HTTPBearer | HTTPBase | OAuth2 | OpenIdConnect | OpenIdConnectWithConfig
"""Any security scheme."""


__all__ = [
    "APIKey",
    "APIKeyIn",
    "AuthScheme",
    "AuthSchemeType",
    "HTTPBase",
    "HTTPBearer",
    "OAuth2",
    "OAuthFlows",
    "OpenIdConnect",
    "OpenIdConnectWithConfig",
    "SecurityBase",
    "SecuritySchemeType",
]
