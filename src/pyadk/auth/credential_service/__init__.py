"""Credential services: where end users' credentials are kept between turns."""

from pyadk.auth.credential_service.base_credential_service import BaseCredentialService
from pyadk.auth.credential_service.in_memory_credential_service import (
    InMemoryCredentialService,
)
from pyadk.auth.credential_service.session_state_credential_service import (
    SessionStateCredentialService,
)

__all__ = [
    "BaseCredentialService",
    "InMemoryCredentialService",
    "SessionStateCredentialService",
]
