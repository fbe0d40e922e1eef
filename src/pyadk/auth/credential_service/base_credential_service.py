"""BaseCredentialService: where end users' credentials are kept between turns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_tool import AuthConfig


class BaseCredentialService(ABC):
    """Loads and saves the credential of an :class:`~pyadk.auth.auth_tool.AuthConfig`
    (by its ``credential_key``) for the app and user of a callback or tool context.
    Pass one to the Runner as ``credential_service=``."""

    @abstractmethod
    async def load_credential(
        self, auth_config: AuthConfig, callback_context: CallbackContext
    ) -> AuthCredential | None:
        """The credential saved for ``auth_config``, or None."""

    @abstractmethod
    async def save_credential(
        self, auth_config: AuthConfig, callback_context: CallbackContext
    ) -> None:
        """Saves ``auth_config.exchanged_auth_credential`` under its credential key."""


def require_key(auth_config: AuthConfig) -> str:
    """The config's credential key (ValueError when it has none)."""
    if not auth_config.credential_key:
        raise ValueError("The auth config has no credential_key.")
    return auth_config.credential_key


__all__ = ["BaseCredentialService"]
