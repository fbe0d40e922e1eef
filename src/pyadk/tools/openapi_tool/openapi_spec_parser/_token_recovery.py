"""What an OpenAPI call does when the API rejects the user's OAuth2 token (HTTP 401).

A rejected token is refreshed with its refresh token and the call is sent once more;
without one (or when the refresh fails) the token is forgotten and the user is asked to
authorize again. Two budgets per credential bound this, kept in session state so they
last across turns: one refresh and one new consent that did not lead to a working
call. Any answer other than a 401 proves the credential works and refills both.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.credential_manager import CredentialManager
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

Recovery = Literal["retry", "asked", "exhausted", "failed"]
"""``retry``: a new token is stored, send the call again; ``asked``: the user was asked
to authorize again (answer pending); ``exhausted``: the user already did and the API
still refuses, so tell the user; ``failed``: nothing helps, report the API's error."""

MAX_REFRESHES = 1
"""Refreshes of one credential that may go without a working call in between."""
MAX_REAUTH_REQUESTS = 1
"""New consents one credential may ask for without a working call in between."""

_LOCK_PREFIX = "temp:_adk_token_recovery:"
_REFRESHES_PREFIX = "_adk_recovery_refreshes:"
_REAUTH_PREFIX = "_adk_reauth_requests:"


def token_rejected(status_code: int, www_authenticate: str | None) -> bool:
    """Whether a response says the token itself is bad: a 401 whose challenge names
    ``invalid_token``, or that has no challenge (RFC 6750 section 3.1). A 401 asking for
    more scope, or for another scheme, is not fixed by a new token of the same kind."""
    if status_code != 401:
        return False
    challenge = (www_authenticate or "").strip().lower()
    return not challenge or "invalid_token" in challenge


class TokenRecovery:
    """The 401 recovery of one credential (named by its ``credential_key``) in one
    tool call. The bookkeeping is shared by every tool using that credential, such as
    the operations of one toolset."""

    def __init__(self, manager: CredentialManager, tool_context: ToolContext) -> None:
        self._manager = manager
        self._context = tool_context
        self._key = manager.auth_config.credential_key or ""

    @contextlib.contextmanager
    def claim(self) -> Iterator[bool]:
        """Yields True when no other call is recovering this credential, and holds the
        claim until the block ends; hold it across the retried call, whose own 401 then
        finds it taken and cannot recover (and recurse) in turn. The claim lives in the
        invocation's live state (``temp:``): never stored, never in an event."""
        live_state = self._context.invocation_context.session.state
        key = _LOCK_PREFIX + self._key
        if live_state.get(key):
            yield False
            return
        live_state[key] = True  # no await since the check: atomic under asyncio
        try:
            yield True
        finally:
            live_state.pop(key, None)

    def note_success(self) -> None:
        """Refills the budgets: the API accepted the credential (written only when one
        was spent, so an ordinary call changes no state)."""
        state = self._context.state
        for key in (_REFRESHES_PREFIX + self._key, _REAUTH_PREFIX + self._key):
            if state.get(key):
                state[key] = 0

    async def recover(self, rejected: AuthCredential) -> Recovery:
        """Recovers from the API's rejection of ``rejected`` (call within :meth:`claim`)."""
        from pyadk.auth.oauth2 import refresh_token

        current = await self._current()
        if current is not None and _access_token(current) != _access_token(rejected):
            return "retry"  # replaced meanwhile (another call refreshed it)
        source = current or rejected
        state = self._context.state
        if source.oauth2 is not None and source.oauth2.refresh_token:
            refreshes_key = _REFRESHES_PREFIX + self._key
            refreshes = _count(state.get(refreshes_key))
            if refreshes >= MAX_REFRESHES:
                # Refreshed tokens keep being refused: the grant is fine, the access
                # to the API is not, and a new consent would not change that.
                logger.warning("Credential %r: refreshed tokens keep getting 401.", self._key)
                return "failed"
            try:
                refreshed = await refresh_token(self._manager.auth_config.auth_scheme, source)
            except ValueError as error:  # OAuth2Error included: ask the user instead
                logger.warning("Credential %r: refresh after a 401 failed: %s", self._key, error)
            else:
                new_access = _access_token(refreshed) != _access_token(source)
                rotated = refreshed.oauth2 is not None and (
                    refreshed.oauth2.refresh_token != source.oauth2.refresh_token
                )
                if new_access or rotated:  # else nothing moved: nothing spent or stored
                    state[refreshes_key] = refreshes + 1
                    await self._manager.replace_credential(self._context, refreshed)
                if new_access:
                    return "retry"
        reauth_key = _REAUTH_PREFIX + self._key
        requests = _count(state.get(reauth_key))
        if requests >= MAX_REAUTH_REQUESTS:
            # The stored credential stays: forgetting it would make the next call ask
            # again, the very loop this budget closes.
            logger.warning("Credential %r: re-authorized and still refused.", self._key)
            return "exhausted"
        try:
            await self._manager.request_credential(self._context)
        except ValueError as error:  # a scheme or client that cannot ask for consent
            logger.warning("Credential %r: cannot ask the user again: %s", self._key, error)
            return "failed"
        state[reauth_key] = requests + 1
        await self._manager.replace_credential(self._context, None)
        return "asked"

    async def _current(self) -> AuthCredential | None:
        """The credential a call would use now (None when there is none, or when an
        expired one cannot be refreshed)."""
        try:
            return await self._manager.get_auth_credential(self._context)
        except ValueError:
            return None


def _access_token(credential: AuthCredential) -> str | None:
    if credential.oauth2 is not None and credential.oauth2.access_token:
        return credential.oauth2.access_token
    return credential.http.credentials.token if credential.http is not None else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


__all__ = ["MAX_REAUTH_REQUESTS", "MAX_REFRESHES", "Recovery", "TokenRecovery", "token_rejected"]
