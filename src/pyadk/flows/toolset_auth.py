"""Toolsets that need a credential before their tools are listed (e.g. an MCP server
behind OAuth2): found before each model call, or asked of the user, which pauses the
agent until the client answers (google-adk's toolset auth)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pyadk.tools.base_toolset import BaseToolset

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.agents.llm_agent import LlmAgent
    from pyadk.events.event import Event

logger = logging.getLogger(__name__)


def auth_toolsets(agent: LlmAgent) -> list[BaseToolset]:
    """The agent's toolsets that declare an auth config (usually none)."""
    return [
        item
        for item in agent.tools
        if isinstance(item, BaseToolset) and item.get_auth_config() is not None
    ]


async def toolset_auth_request(ctx: InvocationContext, toolsets: list[BaseToolset]) -> Event | None:
    """Resolves each toolset's credential into the invocation (see
    ``ReadonlyContext.get_credential``); the event asking the client for the ones that
    are missing, or None when every toolset has its credential."""
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.auth.auth_handler import AuthHandler
    from pyadk.auth.credential_manager import CredentialManager
    from pyadk.flows.tool_auth import TOOLSET_AUTH_PREFIX, request_event

    context = CallbackContext(ctx)
    missing: dict[str, Any] = {}
    for toolset in toolsets:
        config = toolset.get_auth_config()
        assert config is not None and config.credential_key
        credential = ctx._counters.credentials.get(config.credential_key)
        if credential is None:
            try:
                credential = await CredentialManager(config).get_auth_credential(context)
            except ValueError as error:  # e.g. a refused code exchange: ask again
                logger.warning("Credential of %s: %s", type(toolset).__name__, error)
        if credential is not None:
            ctx._counters.credentials[config.credential_key] = credential
            continue
        request = AuthHandler(config).generate_auth_request()
        missing[TOOLSET_AUTH_PREFIX + type(toolset).__name__] = request
    if not missing:
        return None
    return request_event(ctx, missing, keep=True)
