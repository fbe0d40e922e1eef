"""InMemoryCredentialService: credentials in process memory (tests, single processes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk.auth.credential_service.base_credential_service import (
    BaseCredentialService,
    require_key,
)

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_tool import AuthConfig


class InMemoryCredentialService(BaseCredentialService):
    """Credentials per app, user and credential key, as private copies; lost when the
    process ends."""

    def __init__(self) -> None:
        self._credentials: dict[tuple[str, str, str], AuthCredential] = {}

    async def load_credential(
        self, auth_config: AuthConfig, callback_context: CallbackContext
    ) -> AuthCredential | None:
        ctx = callback_context._invocation_context
        found = self._credentials.get((ctx.app_name, ctx.user_id, require_key(auth_config)))
        return found.model_copy(deep=True) if found is not None else None

    async def save_credential(
        self, auth_config: AuthConfig, callback_context: CallbackContext
    ) -> None:
        ctx = callback_context._invocation_context
        key = (ctx.app_name, ctx.user_id, require_key(auth_config))
        credential = auth_config.exchanged_auth_credential
        if credential is None:
            self._credentials.pop(key, None)
        else:
            self._credentials[key] = credential.model_copy(deep=True)


__all__ = ["InMemoryCredentialService"]
