"""ReadonlyContext: what instruction providers and toolsets may read."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.agents.run_config import RunConfig
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.events.outcome import AgentOutcome


class ReadonlyContext:
    """A read-only view of the invocation: ids, user message and state."""

    def __init__(self, invocation_context: InvocationContext) -> None:
        self._invocation_context = invocation_context

    @property
    def user_content(self) -> types.Content | None:
        """The user message that started this invocation."""
        return self._invocation_context.user_content

    @property
    def invocation_id(self) -> str:
        """The id of the current invocation."""
        return self._invocation_context.invocation_id

    @property
    def agent_name(self) -> str:
        """The name of the agent that is running."""
        return self._invocation_context.agent.name

    @property
    def session(self) -> Any:
        """The current session (treat as read-only)."""
        return self._invocation_context.session

    @property
    def user_id(self) -> str:
        """The id of the user the invocation runs for."""
        return self._invocation_context.user_id

    @property
    def run_config(self) -> RunConfig:
        """The run config of the invocation (treat as read-only)."""
        return self._invocation_context.run_config

    @property
    def state(self) -> Mapping[str, Any]:
        """The session state, read-only."""
        return MappingProxyType(self._invocation_context.session.state)

    def outcome_of(self, agent_name: str) -> AgentOutcome | None:
        """How ``agent_name``'s latest run ended (success, failure, skipped, ...)."""
        return self._invocation_context.outcome_of(agent_name)

    def get_credential(self, key: str) -> AuthCredential | None:
        """The credential resolved for this invocation under ``key`` (a toolset's
        ``credential_key``), or None."""
        return self._invocation_context._counters.credentials.get(key)
