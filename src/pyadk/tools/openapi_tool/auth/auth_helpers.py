"""Build security schemes and credentials, and turn them into request parameters."""

from __future__ import annotations

import base64
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from pyadk.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
)
from pyadk.auth.auth_schemes import (
    APIKey,
    AuthScheme,
    AuthSchemeType,
    HTTPBase,
    HTTPBearer,
    OAuth2,
    OpenIdConnect,
    OpenIdConnectWithConfig,
)
from pyadk.tools.openapi_tool.common.common import ApiParameter

INTERNAL_AUTH_PREFIX = "_auth_prefix_vaf_"
"""Prefix of the argument names auth parameters get (never shown to the model)."""


def token_to_scheme_credential(
    token_type: Literal["apikey", "oauth2Token"],
    location: Literal["header", "query", "cookie"] | None = None,
    name: str | None = None,
    credential_value: str | None = None,
) -> tuple[AuthScheme, AuthCredential | None]:
    """A scheme and credential for an API key (in a header, query parameter or cookie
    called ``name``) or a bearer token (``"oauth2Token"``: ``Authorization: Bearer``).

    ``token_to_scheme_credential("apikey", "header", "X-API-Key", "secret")``.
    """
    if token_type == "apikey":
        if location not in ("header", "query", "cookie"):
            raise ValueError(f"Invalid location for apiKey: {location!r}")
        if not name:
            raise ValueError("An apiKey scheme needs the name of its header/parameter/cookie.")
        scheme: AuthScheme = APIKey.model_validate({"type": "apiKey", "in": location, "name": name})
        credential = (
            AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=credential_value)
            if credential_value
            else None
        )
        return scheme, credential
    if token_type == "oauth2Token":
        credential = (
            AuthCredential(
                auth_type=AuthCredentialTypes.HTTP,
                http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token=credential_value)),
            )
            if credential_value
            else None
        )
        return HTTPBearer(bearerFormat="JWT"), credential
    raise ValueError(f"Invalid token type: {token_type!r} (expected 'apikey' or 'oauth2Token')")


def dict_to_auth_scheme(data: dict[str, Any]) -> AuthScheme:
    """An OpenAPI security scheme object (a dict) as an :data:`AuthScheme`."""
    if "type" not in data:
        raise ValueError("Missing 'type' field in security scheme dictionary.")
    kind = data["type"]
    models: dict[str, type[BaseModel]] = {
        "apiKey": APIKey,
        "oauth2": OAuth2,
        "openIdConnect": OpenIdConnect,
    }
    if kind == "http":
        model: type[BaseModel] = (
            HTTPBearer if str(data.get("scheme", "")).lower() == "bearer" else HTTPBase
        )
    elif kind in models:
        model = models[kind]
        if kind == "openIdConnect" and "authorization_endpoint" in data:
            model = OpenIdConnectWithConfig
    else:
        raise ValueError(f"Invalid security scheme type: {kind!r}")
    try:
        scheme: AuthScheme = model.model_validate(data)  # type: ignore[assignment]
    except ValidationError as error:
        raise ValueError(f"Invalid security scheme data: {error}") from error
    return scheme


def as_auth_scheme(scheme: Any) -> AuthScheme | None:
    """``scheme`` as a pyadk scheme: a dict, a pyadk scheme, or any pydantic model with
    the OpenAPI JSON (such as FastAPI's ``APIKey`` that google-adk programs pass)."""
    if scheme is None or isinstance(
        scheme, APIKey | HTTPBase | OAuth2 | OpenIdConnect | OpenIdConnectWithConfig
    ):
        return scheme
    if isinstance(scheme, BaseModel):
        scheme = scheme.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(scheme, dict):
        return dict_to_auth_scheme(scheme)
    raise TypeError(f"Not a security scheme: {scheme!r}")


def credential_to_param(
    auth_scheme: AuthScheme | None, auth_credential: AuthCredential | None
) -> tuple[ApiParameter | None, dict[str, Any] | None]:
    """The request parameter (header, query or cookie) that carries a credential, and its
    value keyed by the parameter's argument name; ``(None, None)`` when the credential
    holds nothing that can be sent as it is (an OAuth2 credential without a token)."""
    if auth_credential is None:
        return None, None
    auth_type = auth_credential.auth_type
    if auth_type == AuthCredentialTypes.API_KEY:
        if not isinstance(auth_scheme, APIKey) or not auth_credential.api_key:
            raise ValueError(
                "An API key credential needs an apiKey scheme (where the key goes) and a key."
            )
        param = _param(auth_scheme.name, auth_scheme.in_.value, auth_scheme.description)
        return param, {param.py_name: auth_credential.api_key}
    if auth_type == AuthCredentialTypes.HTTP:
        http = auth_credential.http
        if http is None:
            raise ValueError("Invalid HTTP auth credentials: no 'http' field.")
        if http.credentials.token:
            return _authorization(f"Bearer {http.credentials.token}")
        if http.scheme.lower() == "basic" and (
            http.credentials.username is not None or http.credentials.password is not None
        ):
            username = http.credentials.username or ""
            if ":" in username:
                raise ValueError("Invalid HTTP auth credentials: username cannot contain colons")
            pair = f"{username}:{http.credentials.password or ''}".encode()
            return _authorization(f"Basic {base64.b64encode(pair).decode('ascii')}")
        raise ValueError("Invalid HTTP auth credentials: no token, user name or password.")
    if auth_type in (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT):
        token = auth_credential.oauth2.access_token if auth_credential.oauth2 else None
        if not token and auth_credential.http:
            token = auth_credential.http.credentials.token
        return _authorization(f"Bearer {token}") if token else (None, None)
    raise ValueError(
        f"Invalid security scheme and credential combination: {auth_type.value} credential"
        f" for {getattr(auth_scheme, 'type_', None)} scheme."
    )


def _param(name: str, location: str, description: str | None) -> ApiParameter:
    return ApiParameter(
        original_name=name,
        param_location=location,
        param_schema={"type": "string"},
        description=description or "",
        py_name=INTERNAL_AUTH_PREFIX + name,
    )


def _authorization(value: str) -> tuple[ApiParameter, dict[str, Any]]:
    param = _param("Authorization", "header", None)
    return param, {param.py_name: value}


__all__ = [
    "INTERNAL_AUTH_PREFIX",
    "AuthScheme",
    "AuthSchemeType",
    "as_auth_scheme",
    "credential_to_param",
    "dict_to_auth_scheme",
    "token_to_scheme_credential",
]
