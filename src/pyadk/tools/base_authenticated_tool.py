"""BaseAuthenticatedTool: a tool that gets its credential before it runs
(google-adk's ``BaseAuthenticatedTool``)."""

from __future__ import annotations

import abc
import logging
from typing import TYPE_CHECKING, Any

from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.auth.credential_manager import CredentialManager
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

PENDING_AUTHORIZATION = "Pending User Authorization."
"""What a call answers while it waits for the user's credential (google-adk's text)."""


def credential_manager_of(auth_config: AuthConfig | None) -> CredentialManager | None:
    """The manager of ``auth_config``; None (no authentication) without a scheme."""
    if auth_config is None or auth_config.auth_scheme is None:
        return None
    from pyadk.auth.credential_manager import CredentialManager

    return CredentialManager(auth_config)


async def credential_or_request(
    manager: CredentialManager | None, tool_context: ToolContext
) -> tuple[bool, AuthCredential | None]:
    """``(True, credential)`` when the call can run (credential None without a
    manager); ``(False, None)`` after asking the client for the credential."""
    if manager is None:
        return True, None
    credential = await manager.get_auth_credential(tool_context)
    if credential is None:
        await manager.request_credential(tool_context)
        return False, None
    return True, credential


async def run_authenticated(
    tool: Any,
    manager: CredentialManager | None,
    response_for_auth_required: dict[str, Any] | str | None,
    args: dict[str, Any],
    tool_context: ToolContext,
) -> Any:
    """``tool._run_async_impl`` with the credential, or the pending answer after asking
    the client for it (the run of both authenticated tool classes)."""
    ready, credential = await credential_or_request(manager, tool_context)
    if not ready:
        return response_for_auth_required or PENDING_AUTHORIZATION
    return await tool._run_async_impl(args=args, tool_context=tool_context, credential=credential)


class BaseAuthenticatedTool(BaseTool):
    """A tool whose :meth:`_run_async_impl` receives a ready-to-use credential.

    Before each call, a :class:`~pyadk.auth.credential_manager.CredentialManager` of
    ``auth_config`` looks for the credential (configured, answered by the client this
    turn, saved in the credential service, or obtained by a client-credentials grant).
    When there is none, the call asks the client for it (an ``adk_request_credential``
    request pauses the agent) and answers ``response_for_auth_required`` (by default
    ``"Pending User Authorization."``); the client's answer makes it run again. Without
    ``auth_config`` (or its scheme) the tool runs unauthenticated, with ``credential``
    None.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        auth_config: AuthConfig | None = None,
        response_for_auth_required: dict[str, Any] | str | None = None,
    ) -> None:
        super().__init__(name=name, description=description)
        self._auth_config = auth_config
        self._credentials_manager = credential_manager_of(auth_config)
        if self._credentials_manager is None:
            logger.debug("Tool %r has no auth scheme: it runs unauthenticated.", name)
        self._response_for_auth_required = response_for_auth_required

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return await run_authenticated(
            self, self._credentials_manager, self._response_for_auth_required, args, tool_context
        )

    @abc.abstractmethod
    async def _run_async_impl(
        self, *, args: dict[str, Any], tool_context: ToolContext, credential: AuthCredential
    ) -> Any:
        """Runs the tool with the credential."""


__all__ = ["PENDING_AUTHORIZATION", "BaseAuthenticatedTool"]
