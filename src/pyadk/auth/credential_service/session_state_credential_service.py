"""SessionStateCredentialService: credentials in the session's state (google-adk's
experimental service of the same name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk.auth.auth_credential import AuthCredential
from pyadk.auth.credential_service.base_credential_service import (
    BaseCredentialService,
    require_key,
)

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.auth.auth_tool import AuthConfig


class SessionStateCredentialService(BaseCredentialService):
    """Keeps each credential in ``state[<credential_key>]`` (as JSON data, without the
    OAuth2 client secret), so it lasts as long as the session and is stored wherever the
    session is. Anyone who can read the session can read the credential: prefer a
    dedicated store for real users' tokens."""

    async def load_credential(
        self, auth_config: AuthConfig, callback_context: CallbackContext
    ) -> AuthCredential | None:
        value = callback_context.state.get(require_key(auth_config))
        if isinstance(value, AuthCredential):
            return value.model_copy(deep=True)
        if isinstance(value, dict):
            return AuthCredential.model_validate(value)
        return None

    async def save_credential(
        self, auth_config: AuthConfig, callback_context: CallbackContext
    ) -> None:
        credential = auth_config.exchanged_auth_credential
        data = None
        if credential is not None:
            data = credential.model_dump(mode="json", exclude_none=True)
            if isinstance(data.get("oauth2"), dict):
                data["oauth2"].pop("client_secret", None)
        callback_context.state[require_key(auth_config)] = data


__all__ = ["SessionStateCredentialService"]
