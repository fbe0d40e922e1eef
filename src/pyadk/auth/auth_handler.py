"""AuthHandler: turns a tool's credential request into what the client is shown, and
the client's answer into a credential the tool can use (google-adk's ``AuthHandler``).

The request that travels to the client, and is stored in the session, never holds a
secret the developer configured (an OAuth2 client secret, an API key, an HTTP token
or password): the tool's own configuration keeps those, and they are attached again
only when the credential is used.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from pyadk.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    OAuth2Auth,
)
from pyadk.auth.auth_schemes import AuthScheme, SecuritySchemeType
from pyadk.auth.auth_tool import AuthConfig

TEMP_PREFIX = "temp:"
"""The client's answer lives in ``temp:<credential_key>`` state for the turn it came."""


class AuthHandler:
    """The credential request and response of one :class:`AuthConfig`."""

    def __init__(self, auth_config: AuthConfig) -> None:
        self.auth_config = auth_config

    def generate_auth_request(self) -> AuthConfig:
        """The request to send: for OAuth2 / OpenID Connect, the configured credential
        with an authorization URI and a fresh ``state`` (and a PKCE verifier, which
        :func:`for_client` leaves out of what the client is sent); no configured secret
        in any case. ValueError when an
        OAuth2 scheme has no client id configured."""
        config = self.auth_config
        if not needs_consent(config.auth_scheme):
            return without_configured_secrets(config)
        exchanged = config.exchanged_auth_credential
        if exchanged is not None and exchanged.oauth2 is not None and exchanged.oauth2.auth_uri:
            return without_configured_secrets(config)
        raw = config.raw_auth_credential
        if raw is None or raw.oauth2 is None:
            kind = config.auth_scheme.type_.value
            raise ValueError(
                f"The {kind} scheme needs raw_auth_credential with an oauth2 client "
                "(client_id, and client_secret unless the client is public)."
            )
        if raw.oauth2.auth_uri:
            exchanged = raw.model_copy(deep=True)
        else:
            from pyadk.auth.oauth2 import authorization_request

            exchanged = authorization_request(config.auth_scheme, raw)
        request = config.model_copy(update={"exchanged_auth_credential": exchanged})
        return without_configured_secrets(request)

    def get_auth_response(self, state: Any) -> AuthCredential | None:
        """The client's answer stored in ``state`` (None before it came), with the
        configured OAuth2 client attached; an authorization code is exchanged for a
        token first (a blocking call: async code should use
        :class:`~pyadk.auth.credential_manager.CredentialManager`)."""
        found = self._stored(state)
        if found is None:
            return None
        key, credential = found
        credential = with_configured_client(credential, self.auth_config.raw_auth_credential)
        if not is_exchangeable(self.auth_config.auth_scheme, credential):
            return credential
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            exchanged = pool.submit(asyncio.run, self._exchange(credential)).result()
        state[key] = without_client_secret(exchanged)
        return exchanged

    async def exchange_auth_token(self) -> AuthCredential:
        """The exchanged credential of the config, its authorization code traded for a
        token (returned as it is when there is nothing to exchange)."""
        credential = self.auth_config.exchanged_auth_credential
        if credential is None:
            raise ValueError("The auth config holds no exchanged_auth_credential.")
        credential = with_configured_client(credential, self.auth_config.raw_auth_credential)
        if not is_exchangeable(self.auth_config.auth_scheme, credential):
            return credential
        return await self._exchange(credential)

    async def parse_and_store_auth_response(self, state: Any) -> None:
        """Stores the config's exchanged credential (its code traded for a token when
        the configured client allows) as the answer for this turn."""
        key = self.auth_config.credential_key
        if not key:
            raise ValueError("The auth config has no credential_key.")
        credential = await self.exchange_auth_token()
        state[TEMP_PREFIX + key] = without_client_secret(credential)

    async def _exchange(self, credential: AuthCredential) -> AuthCredential:
        from pyadk.auth.oauth2 import exchange_code

        return await exchange_code(self.auth_config.auth_scheme, credential)

    def _stored(self, state: Any) -> tuple[str, AuthCredential] | None:
        key = self.auth_config.credential_key
        if not key:
            return None
        for name in (TEMP_PREFIX + key, key):
            value = state.get(name)
            if value is None or value == "":
                continue
            return name, credential_from_value(self.auth_config.auth_scheme, value)
        return None


def needs_consent(scheme: AuthScheme) -> bool:
    """Whether the scheme's credential comes from a user's consent (OAuth2, OIDC)."""
    return scheme.type_ in (SecuritySchemeType.oauth2, SecuritySchemeType.openIdConnect)


def is_exchangeable(scheme: AuthScheme, credential: AuthCredential | None) -> bool:
    """Whether ``credential`` holds an OAuth2 authorization code (or the redirect URI
    carrying one) still to be traded for a token."""
    oauth2 = credential.oauth2 if credential is not None else None
    return (
        needs_consent(scheme)
        and oauth2 is not None
        and not oauth2.access_token
        and bool(oauth2.auth_response_uri or oauth2.auth_code)
    )


def credential_from_value(scheme: AuthScheme, value: Any) -> AuthCredential:
    """A credential from what a client or a state entry holds: a credential (or its
    JSON), or a bare string taken as the scheme's key or token."""
    if isinstance(value, AuthCredential):
        return value.model_copy(deep=True)
    if isinstance(value, dict):
        return AuthCredential.model_validate(value)
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = str(value)
        if scheme.type_ == SecuritySchemeType.apiKey:
            return AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=text)
        if scheme.type_ == SecuritySchemeType.http:
            http_scheme = getattr(scheme, "scheme", "bearer") or "bearer"
            return AuthCredential(
                auth_type=AuthCredentialTypes.HTTP,
                http=HttpAuth(scheme=http_scheme, credentials=HttpCredentials(token=text)),
            )
        return AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(access_token=text)
        )
    raise ValueError(f"Not a credential: a {type(value).__name__}.")


def with_configured_client(
    credential: AuthCredential, configured: AuthCredential | None
) -> AuthCredential:
    """``credential`` with the OAuth2 client fields it lacks taken from the configured
    credential (client id and secret, redirect URI, token endpoint auth method)."""
    if configured is None or configured.oauth2 is None or credential.oauth2 is None:
        return credential
    source = configured.oauth2
    fill: dict[str, Any] = {
        name: getattr(source, name)
        for name in ("client_id", "client_secret", "redirect_uri", "token_endpoint_auth_method")
        if name in type(source).model_fields
        and getattr(credential.oauth2, name) is None
        and getattr(source, name) is not None
    }
    if not fill:
        return credential
    return credential.model_copy(update={"oauth2": credential.oauth2.model_copy(update=fill)})


def without_client_secret(credential: AuthCredential) -> AuthCredential:
    """A copy of ``credential`` without its OAuth2 client secret."""
    copy = credential.model_copy(deep=True)
    if copy.oauth2 is not None:
        copy.oauth2.client_secret = None
    return copy


def without_configured_secrets(config: AuthConfig) -> AuthConfig:
    """A copy of ``config`` whose credentials hold no secret the developer configured:
    no OAuth2 client secret, API key, HTTP token, password or extra headers."""
    return config.model_copy(
        update={
            "raw_auth_credential": _redacted(config.raw_auth_credential),
            "exchanged_auth_credential": _redacted(config.exchanged_auth_credential),
        }
    )


def for_client(config: AuthConfig) -> AuthConfig:
    """What the ``adk_request_credential`` call carries: :func:`without_configured_secrets`,
    and no PKCE code verifier (the copy stored with the tool's result keeps it to finish
    the exchange)."""
    shown = without_configured_secrets(config)
    for credential in (shown.raw_auth_credential, shown.exchanged_auth_credential):
        oauth2 = credential.oauth2 if credential is not None else None
        if oauth2 is not None and "code_verifier" in type(oauth2).model_fields:
            oauth2.code_verifier = None
    return shown


def _redacted(credential: AuthCredential | None) -> AuthCredential | None:
    if credential is None:
        return None
    copy = without_client_secret(credential)
    copy.api_key = None
    if copy.http is not None:
        copy.http.credentials.password = None
        copy.http.credentials.token = None
        copy.http.additional_headers = None
    return copy


__all__ = [
    "AuthHandler",
    "credential_from_value",
    "for_client",
    "is_exchangeable",
    "needs_consent",
    "with_configured_client",
    "without_client_secret",
    "without_configured_secrets",
]
