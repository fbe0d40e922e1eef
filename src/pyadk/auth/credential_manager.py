"""CredentialManager: the credential a tool call can use now, from wherever it is
(google-adk's ``CredentialManager``)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from pyadk.auth.auth_credential import AuthCredential
from pyadk.auth.auth_handler import (
    TEMP_PREFIX,
    AuthHandler,
    credential_from_value,
    is_exchangeable,
    with_configured_client,
    without_client_secret,
)
from pyadk.auth.auth_schemes import OAuth2
from pyadk.auth.auth_tool import AuthConfig

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)


class CredentialManager:
    """Finds the credential of one :class:`AuthConfig` for a tool call.

    :meth:`get_auth_credential` looks, in order, at: a credential the developer
    configured that needs no user (an API key, an HTTP token, an OAuth2 token); the
    client's answer to this turn's request (an authorization code is traded for a token);
    the credential service (an expired OAuth2 token is refreshed); and, for an OAuth2
    scheme with a client-credentials flow, a token the client id and secret get. A
    credential it obtains is saved to the credential service (when the Runner has one).
    None means the user must be asked: call :meth:`request_credential`.
    """

    def __init__(self, auth_config: AuthConfig) -> None:
        self._auth_config = auth_config

    @property
    def auth_config(self) -> AuthConfig:
        """The config this manager finds credentials for."""
        return self._auth_config

    async def request_credential(self, tool_context: ToolContext) -> None:
        """Asks the client for the user's credential (the call then waits for it)."""
        tool_context.request_credential(self._auth_config)

    async def get_auth_credential(self, context: CallbackContext) -> AuthCredential | None:
        """The credential to use now, or None when the user must be asked.

        Calls of one invocation that need the same credential look for it one at a
        time: the first trades this turn's OAuth2 code for a token, the others find
        the token (a code is good for one exchange only)."""
        locks = context._invocation_context._counters.credential_locks
        lock = locks.setdefault(self._auth_config.credential_key or "", asyncio.Lock())
        async with lock:
            return await self._find(context)

    async def _find(self, context: CallbackContext) -> AuthCredential | None:
        config = self._auth_config
        scheme, raw = config.auth_scheme, config.raw_auth_credential
        if raw is not None and _usable(raw):
            return raw
        # The turn's answer lives in the session's live state only: never in an event.
        live_state = context._invocation_context.session.state
        answer_key = TEMP_PREFIX + (config.credential_key or "")
        answered = live_state.get(answer_key)
        if answered is not None:
            credential = with_configured_client(credential_from_value(scheme, answered), raw)
            if is_exchangeable(scheme, credential):
                from pyadk.auth.oauth2 import exchange_code

                credential = await exchange_code(scheme, credential)
                live_state[answer_key] = without_client_secret(credential)
            await self._save(context, credential)
            return credential
        saved = await self._load(context)
        if saved is not None:
            saved = with_configured_client(saved, raw)
            if (
                _has_token(saved)
                and _expired(saved)
                and saved.oauth2
                and saved.oauth2.refresh_token
            ):
                saved = await self._refreshed(context, saved)
            if saved is not None and _usable(saved) and not (_has_token(saved) and _expired(saved)):
                return saved
        if isinstance(scheme, OAuth2) and scheme.flows.clientCredentials and raw is not None:
            from pyadk.auth.oauth2 import client_credentials_token

            credential = await client_credentials_token(scheme, raw)
            await self._save(context, credential)
            return credential
        return None

    async def _refreshed(
        self, context: CallbackContext, saved: AuthCredential
    ) -> AuthCredential | None:
        """``saved`` with a fresh token (saved too), or None when the token server refuses
        the refresh token (revoked or expired: the credential is forgotten, so the user
        is asked again). A token server that cannot be reached or fails (5xx) raises."""
        from pyadk.auth.oauth2 import OAuth2Error, refresh_token

        try:
            refreshed = await refresh_token(self._auth_config.auth_scheme, saved)
        except OAuth2Error as error:
            if error.status_code is None or error.status_code >= 500:
                raise
            logger.warning("Forgetting the saved credential: its refresh failed (%s)", error)
            await self.replace_credential(context, None)
            return None
        await self._save(context, refreshed)
        return refreshed

    async def replace_credential(
        self, context: CallbackContext, credential: AuthCredential | None
    ) -> None:
        """Makes ``credential`` the one later calls find: it replaces this turn's answer
        (when the client sent one) and the credential service's copy. None forgets
        both, so the next call that needs the credential asks the user again."""
        live_state = context._invocation_context.session.state
        answer_key = TEMP_PREFIX + (self._auth_config.credential_key or "")
        if live_state.get(answer_key) is not None:
            live_state[answer_key] = (
                None if credential is None else without_client_secret(credential)
            )
        if credential is not None:
            await self._save(context, credential)
        elif context._invocation_context.credential_service is not None:
            forgotten = self._auth_config.model_copy(update={"exchanged_auth_credential": None})
            await context.save_credential(forgotten)

    def handler(self) -> AuthHandler:
        """The :class:`AuthHandler` of this manager's config."""
        return AuthHandler(self._auth_config)

    async def _load(self, context: CallbackContext) -> AuthCredential | None:
        if context._invocation_context.credential_service is None:
            return None
        return await context.load_credential(self._auth_config)

    async def _save(self, context: CallbackContext, credential: AuthCredential) -> None:
        if context._invocation_context.credential_service is None:
            return
        saved = self._auth_config.model_copy(
            update={"exchanged_auth_credential": without_client_secret(credential)}
        )
        await context.save_credential(saved)


def _has_token(credential: AuthCredential) -> bool:
    oauth2 = credential.oauth2
    return bool(oauth2 is not None and oauth2.access_token)


def _expired(credential: AuthCredential) -> bool:
    from pyadk.auth.oauth2 import is_expired

    return is_expired(credential)


def _usable(credential: AuthCredential) -> bool:
    """Whether the credential can be sent as it is."""
    if credential.api_key:
        return True
    http = credential.http
    if http is not None and (
        http.credentials.token or http.credentials.username or http.credentials.password
    ):
        return True
    return _has_token(credential)


__all__ = ["CredentialManager"]
