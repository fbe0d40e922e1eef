"""Credentials and security schemes for tools that call authenticated APIs.

google-adk's ``google.adk.auth`` names: API keys, HTTP basic and bearer, OAuth2 and
OpenID Connect (a user's consent asked through the client with ``adk_request_credential``,
see :mod:`pyadk.flows.tool_auth`). Scheme classes live in :mod:`pyadk.auth.auth_schemes`,
the OAuth2 protocol steps in :mod:`pyadk.auth.oauth2`, credential stores in
:mod:`pyadk.auth.credential_service`.
"""

from pyadk.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    OAuth2Auth,
)
from pyadk.auth.auth_handler import AuthHandler
from pyadk.auth.auth_schemes import AuthScheme, AuthSchemeType, OpenIdConnectWithConfig
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments

__all__ = [
    "AuthConfig",
    "AuthCredential",
    "AuthCredentialTypes",
    "AuthHandler",
    "AuthScheme",
    "AuthSchemeType",
    "AuthToolArguments",
    "HttpAuth",
    "HttpCredentials",
    "OAuth2Auth",
    "OpenIdConnectWithConfig",
]
