"""The HTTP headers that carry a credential (for connections such as an MCP server's)."""

from __future__ import annotations

import base64

from pyadk.auth.auth_credential import AuthCredential
from pyadk.auth.auth_schemes import APIKey, AuthScheme


def build_auth_headers(credential: AuthCredential | None, scheme: AuthScheme) -> dict[str, str]:
    """The request headers for ``credential`` under ``scheme`` (empty without one): an
    API key in its header (or cookie), HTTP basic or bearer, an OAuth2 access token as
    a bearer token. ValueError for an API key that goes in the query string."""
    if credential is None:
        return {}
    if credential.api_key:
        if not isinstance(scheme, APIKey):
            return {"Authorization": f"Bearer {credential.api_key}"}
        where = scheme.in_.value
        if where == "header":
            return {scheme.name: credential.api_key}
        if where == "cookie":
            return {"Cookie": f"{scheme.name}={credential.api_key}"}
        raise ValueError(f"An API key sent in the {where} cannot go in a request header.")
    http = credential.http
    if http is not None:
        if http.credentials.token:
            return {
                "Authorization": f"Bearer {http.credentials.token}",
                **(http.additional_headers or {}),
            }
        if http.credentials.username is not None or http.credentials.password is not None:
            pair = f"{http.credentials.username or ''}:{http.credentials.password or ''}"
            basic = base64.b64encode(pair.encode()).decode("ascii")
            return {"Authorization": f"Basic {basic}", **(http.additional_headers or {})}
    oauth2 = credential.oauth2
    if oauth2 is not None and oauth2.access_token:
        return {"Authorization": f"Bearer {oauth2.access_token}"}
    return {}


__all__ = ["build_auth_headers"]
