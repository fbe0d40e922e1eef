"""What a tool asks its client for when it needs an end user's credential
(google-adk's ``AuthConfig`` and ``AuthToolArguments``)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from pyadk.auth.auth_credential import AuthCredential, BaseModelWithConfig
from pyadk.auth.auth_schemes import AuthScheme
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME

_PER_REQUEST_OAUTH2_FIELDS = (
    "auth_uri",
    "state",
    "auth_response_uri",
    "auth_code",
    "access_token",
    "refresh_token",
    "id_token",
    "expires_at",
    "expires_in",
    "redirect_uri",
    "code_verifier",
)
"""OAuth2 fields that change from one consent to the next: not part of the key."""


class AuthConfig(BaseModelWithConfig):
    """A credential request: the scheme, what the developer configured and, once the
    client answered, the end user's credential.

    ``credential_key`` names the credential in credential services and session state;
    without one it is derived from the scheme and the configured credential (the same
    configuration always gets the same key), or taken from a ``credential_key`` extra
    field of either.
    """

    auth_scheme: AuthScheme
    raw_auth_credential: AuthCredential | None = None
    """What the developer configured: an OAuth2 client id and secret, an API key..."""
    exchanged_auth_credential: AuthCredential | None = None
    """Filled in by pyadk (an OAuth2 authorization URI) and then by the client (the
    redirect URI the user's browser landed on, an API key, a token)."""
    credential_key: str | None = None

    def model_post_init(self, context: Any, /) -> None:
        if self.credential_key:
            return
        for source in (self.raw_auth_credential, self.auth_scheme):
            extra = source.model_extra if source is not None else None
            for name in ("credential_key", "credentialKey"):
                value = (extra or {}).get(name)
                if isinstance(value, str) and value:
                    self.credential_key = value
                    return
        self.credential_key = self.get_credential_key()

    def get_credential_key(self) -> str:
        """The key derived from the scheme and the configured credential (their fields
        that do not change from one consent to the next)."""
        scheme = self.auth_scheme
        kind = getattr(scheme.type_, "name", str(scheme.type_))
        key = f"adk_{kind}_{_digest(scheme)}"
        raw = self.raw_auth_credential
        if raw is not None:
            if raw.oauth2 is not None:
                raw = raw.model_copy(
                    update={
                        "oauth2": raw.oauth2.model_copy(
                            update=dict.fromkeys(_PER_REQUEST_OAUTH2_FIELDS)
                        )
                    }
                )
            key += f"_{raw.auth_type.value}_{_digest(raw)}"
        return key


class AuthToolArguments(BaseModelWithConfig):
    """The arguments of an ``adk_request_credential`` call: the tool call that needs
    the credential, and the request."""

    function_call_id: str
    auth_config: AuthConfig


def _digest(model: BaseModel) -> str:
    """A short digest of ``model``'s JSON that does not depend on key order, the hash
    seed or extra fields."""
    data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    for name in model.model_extra or {}:
        data.pop(name, None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


__all__ = ["REQUEST_EUC_FUNCTION_CALL_NAME", "AuthConfig", "AuthToolArguments"]
