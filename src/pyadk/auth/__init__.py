"""Credentials and security schemes for tools that call authenticated APIs.

google-adk's ``google.adk.auth`` names, for the schemes that need no browser or cloud:
API keys, HTTP basic and bearer (and OAuth2 / OpenID Connect access tokens you already
hold). Scheme classes live in :mod:`pyadk.auth.auth_schemes`.
"""

from pyadk.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    OAuth2Auth,
)
from pyadk.auth.auth_schemes import AuthScheme, AuthSchemeType, OpenIdConnectWithConfig

__all__ = [
    "AuthCredential",
    "AuthCredentialTypes",
    "AuthScheme",
    "AuthSchemeType",
    "HttpAuth",
    "HttpCredentials",
    "OAuth2Auth",
    "OpenIdConnectWithConfig",
]
