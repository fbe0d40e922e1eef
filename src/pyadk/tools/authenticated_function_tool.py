"""AuthenticatedFunctionTool: a function tool that gets its credential before it runs
(google-adk's ``AuthenticatedFunctionTool``)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyadk.tools.base_authenticated_tool import credential_manager_of, run_authenticated
from pyadk.tools.base_tool import RequireConfirmation
from pyadk.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)


class AuthenticatedFunctionTool(FunctionTool):
    """A :class:`FunctionTool` whose function receives the user's credential in a
    ``credential`` parameter (hidden from the model, like ``tool_context``).

    Before each call, a :class:`~pyadk.auth.credential_manager.CredentialManager` of
    ``auth_config`` looks for the credential. When there is none, the call asks the
    client for it (an ``adk_request_credential`` request pauses the agent) and answers
    ``response_for_auth_required`` (by default ``"Pending User Authorization."``)
    without calling the function; the client's answer makes the call run again, with
    the credential. Without ``auth_config`` the function gets ``credential=None``.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        auth_config: AuthConfig | None = None,
        response_for_auth_required: dict[str, Any] | str | None = None,
        name: str | None = None,
        require_confirmation: RequireConfirmation = False,
        idempotent: bool = False,
    ) -> None:
        super().__init__(
            func, name=name, require_confirmation=require_confirmation, idempotent=idempotent
        )
        self._ignore_params.append("credential")
        target = func if inspect.isroutine(func) else getattr(func, "__call__", func)  # noqa: B004
        self._takes_credential = "credential" in inspect.signature(target).parameters
        self._credentials_manager = credential_manager_of(auth_config)
        if self._credentials_manager is None:
            logger.warning(
                "AuthenticatedFunctionTool %r has no auth_config scheme: it runs without "
                "authentication (use FunctionTool when none is needed).",
                self.name,
            )
        self._response_for_auth_required = response_for_auth_required

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return await run_authenticated(
            self, self._credentials_manager, self._response_for_auth_required, args, tool_context
        )

    async def _run_async_impl(
        self,
        *,
        args: dict[str, Any],
        tool_context: ToolContext,
        credential: AuthCredential | None,
    ) -> Any:
        """Calls the function, passing ``credential`` when it takes one."""
        hidden: dict[str, Any] = {"credential": credential} if self._takes_credential else {}
        return await self._call_function(args, tool_context, **hidden)


__all__ = ["AuthenticatedFunctionTool"]
