"""Turning what DebugLoggingPlugin records into plain YAML-safe data, secrets redacted."""

from __future__ import annotations

import enum
import re
import sys
from datetime import date, time
from typing import Any

from pydantic import BaseModel

REDACTED = "[REDACTED]"

# Keys whose value is a secret wherever they appear (after folding case, hyphens and
# camelCase to snake_case, and stripping an ``app:`` / ``user:`` scope).
_SECRET_KEYS = frozenset(
    {
        "access_token",
        "api_key",
        "auth_code",
        "auth_response_uri",
        "authorization",
        "client_secret",
        "code_verifier",
        "google_access_id",
        "id_token",
        "password",
        "private_key",
        "private_key_id",
        "proxy_authorization",
        "refresh_token",
        "secret",
        "sig",
        "signature",
        "token",
        "x_amz_credential",
        "x_amz_signature",
        "x_api_key",
        "x_goog_credential",
        "x_goog_security_token",
        "x_goog_signature",
    }
)
# Parts of a key that name a secret anywhere in it (``openai_api_key``, ``db_password``).
_SECRET_FRAGMENTS = ("api_key", "credentials", "passwd", "password", "private_key", "secret")
# A key ending so is a token (``bearer_token``), while ``prompt_token_count`` is not.
_SECRET_SUFFIXES = ("_token",)
_SCOPES = ("app:", "user:")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# An armoured private key inside any string (a pasted service-account file); a block
# without its END line is cut to the end of the string.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
    r"(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    re.DOTALL,
)
_MAX_DEPTH = 20
# pyadk's credential models (pyadk.auth.auth_credential), redacted whole. Looked up in
# sys.modules only: no credential can exist when that module was never imported.
_CREDENTIAL_CLASSES = ("AuthCredential", "HttpAuth", "HttpCredentials", "OAuth2Auth")


def is_secret_key(key: Any) -> bool:
    """Whether a mapping key names a secret (``temp:`` state keys always do)."""
    if not isinstance(key, str):
        return False
    normalized = _CAMEL.sub("_", str.__str__(key)).lower().replace("-", "_")
    if normalized.startswith("temp:"):
        return True
    for scope in _SCOPES:
        if normalized.startswith(scope):
            normalized = normalized[len(scope) :]
            break
    if normalized in _SECRET_KEYS or normalized.endswith(_SECRET_SUFFIXES):
        return True
    return any(fragment in normalized for fragment in _SECRET_FRAGMENTS)


def _credential_types() -> tuple[type, ...]:
    module = sys.modules.get("pyadk.auth.auth_credential")
    if module is None:
        return ()
    found = (getattr(module, name, None) for name in _CREDENTIAL_CLASSES)
    return tuple(cls for cls in found if isinstance(cls, type))


def _model_items(model: BaseModel) -> list[tuple[str, Any]]:
    return [*model.__dict__.items(), *(model.__pydantic_extra__ or {}).items()]


def _holds_credential(value: Any, credentials: tuple[type, ...], depth: int = 0) -> bool:
    """Whether a credential model is reachable from ``value`` (dumping a model would
    flatten it to a dict that only its key name could identify)."""
    if not credentials or depth > _MAX_DEPTH:
        return False
    if isinstance(value, credentials):
        return True
    if isinstance(value, BaseModel):
        items: Any = (v for _, v in _model_items(value))
    elif isinstance(value, dict):
        items = value.values()
    elif isinstance(value, list | tuple | set | frozenset):
        items = value
    else:
        return False
    return any(_holds_credential(item, credentials, depth + 1) for item in items)


def safe_serialize(value: Any, depth: int = 0) -> Any:
    """``value`` as plain data (str, int, float, bool, None, lists, dicts) with
    credentials, secret-named keys and private-key blocks replaced by ``[REDACTED]``;
    bytes become a size note."""
    credentials = _credential_types()
    return _serialize(value, credentials, depth)


def _serialize(value: Any, credentials: tuple[type, ...], depth: int) -> Any:
    if value is None:
        return None
    if credentials and isinstance(value, credentials):
        return REDACTED
    if depth > _MAX_DEPTH:
        return f"<{type(value).__name__} ...>"
    child = depth + 1
    if isinstance(value, enum.Enum):  # a str/int enum member would dump as a Python tag
        return _serialize(value.value, credentials, child)
    if isinstance(value, str):
        return _PRIVATE_KEY.sub(REDACTED, str.__str__(value))
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return f"<bytes: {len(value)} bytes>"
    if isinstance(value, list | tuple | set | frozenset):
        return [_serialize(item, credentials, child) for item in value]
    if isinstance(value, dict):
        return {
            str(key): REDACTED if is_secret_key(key) else _serialize(item, credentials, child)
            for key, item in value.items()
        }
    if isinstance(value, BaseModel):
        if _holds_credential(value, credentials):
            fields = {name: item for name, item in _model_items(value) if item is not None}
            return _serialize(fields, credentials, depth)
        try:
            dumped = value.model_dump(mode="json", exclude_none=True)
        except Exception:
            return str(value)
        return _serialize(dumped, credentials, depth)
    try:
        return str(value)
    except Exception:
        return "<unserializable>"
