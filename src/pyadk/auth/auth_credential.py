"""Credentials for tools that call authenticated APIs (google-adk's ``AuthCredential``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, alias_generators


class BaseModelWithConfig(BaseModel):
    """Base of the credential models: camelCase JSON aliases, extra keys allowed."""

    model_config = ConfigDict(
        extra="allow",
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
        hide_input_in_errors=True,
    )


class HttpCredentials(BaseModelWithConfig):
    """The secret of an HTTP auth scheme: a user name and password, or a token."""

    username: str | None = None
    password: Annotated[str | None, Field(repr=False)] = None
    token: Annotated[str | None, Field(repr=False)] = None


class HttpAuth(BaseModelWithConfig):
    """HTTP authentication: the scheme (``"basic"``, ``"bearer"``) and its credentials."""

    scheme: str
    credentials: HttpCredentials
    additional_headers: Annotated[dict[str, str] | None, Field(repr=False)] = None
    """Extra headers sent with every request that uses this credential."""


class OAuth2Auth(BaseModelWithConfig):
    """An OAuth2 / OpenID Connect credential. pyadk sends ``access_token`` as a bearer
    token; :mod:`pyadk.auth.oauth2` builds the consent URL and fetches the tokens."""

    client_id: str | None = None
    client_secret: Annotated[str | None, Field(repr=False)] = None
    auth_uri: str | None = None
    nonce: str | None = None
    state: str | None = None
    redirect_uri: str | None = None
    auth_response_uri: Annotated[str | None, Field(repr=False)] = None
    auth_code: Annotated[str | None, Field(repr=False)] = None
    access_token: Annotated[str | None, Field(repr=False)] = None
    refresh_token: Annotated[str | None, Field(repr=False)] = None
    id_token: Annotated[str | None, Field(repr=False)] = None
    expires_at: int | None = None
    expires_in: int | None = None
    audience: str | None = None
    prompt: str | None = None
    code_verifier: Annotated[str | None, Field(repr=False)] = None
    """The PKCE secret of an authorization request (RFC 7636)."""
    code_challenge_method: str | None = None
    """``"S256"`` to use PKCE (always used for a client without a secret)."""
    token_endpoint_auth_method: (
        Literal["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"]
        | None
    ) = None
    """How the client authenticates to the token endpoint; ``None`` is
    ``client_secret_basic`` (HTTP Basic, which every OAuth2 server supports; google-adk's
    default too)."""


class AuthCredentialTypes(StrEnum):
    """The kind of a credential."""

    API_KEY = "apiKey"
    HTTP = "http"
    OAUTH2 = "oauth2"
    OPEN_ID_CONNECT = "openIdConnect"
    SERVICE_ACCOUNT = "serviceAccount"


class AuthCredential(BaseModelWithConfig):
    """A credential: an API key, HTTP credentials (basic, bearer) or an OAuth2 token.

    ``AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k")``;
    ``AuthCredential(auth_type=AuthCredentialTypes.HTTP, http=HttpAuth(scheme="bearer",
    credentials=HttpCredentials(token="t")))``.
    """

    auth_type: AuthCredentialTypes
    resource_ref: str | None = None
    api_key: Annotated[str | None, Field(repr=False)] = None
    http: HttpAuth | None = None
    oauth2: OAuth2Auth | None = None


__all__ = [
    "AuthCredential",
    "AuthCredentialTypes",
    "BaseModelWithConfig",
    "HttpAuth",
    "HttpCredentials",
    "OAuth2Auth",
]
