"""CallbackContext: what callbacks may read and change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.events.event_actions import EventActions
from pyadk.events.outcome import AgentOutcome
from pyadk.sessions.state import State
from pyadk.utils.fast_models import construct

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.events.event import Event
    from pyadk.memory.base_memory_service import (
        BaseMemoryService,
        MemoryEntry,
        SearchMemoryResponse,
    )


class CallbackContext(ReadonlyContext):
    """Context of a callback: writable ``state`` (recorded as a delta) and artifacts."""

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        event_actions: EventActions | None = None,
    ) -> None:
        super().__init__(invocation_context)
        self._event_actions = event_actions or construct(EventActions)
        self._state = State(invocation_context.session.state, self._event_actions.state_delta)
        self.outcome: AgentOutcome | None = None
        """In an after-agent callback: how the agent's run ended."""

    @property
    def state(self) -> State:  # type: ignore[override]
        """Session state; writes are recorded in this context's event actions."""
        return self._state

    @property
    def actions(self) -> EventActions:
        """The actions the resulting event will carry."""
        return self._event_actions

    def _artifact_service(self) -> Any:
        service = self._invocation_context.artifact_service
        if service is None:
            raise ValueError(
                "Artifact service is not initialized: pass artifact_service= to the Runner."
            )
        return service

    async def load_artifact(self, filename: str, version: int | None = None) -> types.Part | None:
        """Loads an artifact of this session (latest version unless ``version``)."""
        ctx = self._invocation_context
        result: types.Part | None = await self._artifact_service().load_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=filename,
            version=version,
        )
        return result

    async def save_artifact(self, filename: str, artifact: types.Part) -> int:
        """Saves an artifact, records it in ``artifact_delta`` and returns its version."""
        ctx = self._invocation_context
        version: int = await self._artifact_service().save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=filename,
            artifact=types.Part.model_validate(artifact),
        )
        self._event_actions.artifact_delta[filename] = version
        return version

    async def list_artifacts(self) -> list[str]:
        """Names of the artifacts this session can see."""
        ctx = self._invocation_context
        keys: list[str] = await self._artifact_service().list_artifact_keys(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id
        )
        return keys

    def _credential_service(self) -> Any:
        service = self._invocation_context.credential_service
        if service is None:
            raise ValueError(
                "Credential service is not initialized: pass credential_service= to the Runner."
            )
        return service

    async def load_credential(self, auth_config: AuthConfig) -> AuthCredential | None:
        """The credential the credential service holds for ``auth_config``, or None."""
        credential: AuthCredential | None = await self._credential_service().load_credential(
            auth_config, self
        )
        return credential

    async def save_credential(self, auth_config: AuthConfig) -> None:
        """Saves ``auth_config.exchanged_auth_credential`` to the credential service."""
        await self._credential_service().save_credential(auth_config, self)

    def _memory_service(self, action: str) -> BaseMemoryService:
        service = self._invocation_context.memory_service
        if service is None:
            raise ValueError(
                f"Cannot {action}: memory service is not available (pass memory_service= "
                "to the Runner)."
            )
        return service

    async def add_session_to_memory(self) -> None:
        """Adds this session's events to the memory service (e.g. in an after-agent
        callback, so that later sessions can recall this one)."""
        service = self._memory_service("add session to memory")
        await service.add_session_to_memory(self._invocation_context.session)

    async def add_events_to_memory(
        self, *, events: Sequence[Event], custom_metadata: Mapping[str, object] | None = None
    ) -> None:
        """Adds ``events`` to the memory of this session's app, user and session."""
        service = self._memory_service("add events to memory")
        session = self._invocation_context.session
        await service.add_events_to_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            session_id=session.id,
            events=events,
            custom_metadata=custom_metadata,
        )

    async def add_memory(
        self,
        *,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Writes ``memories`` directly into this user's memory (services that allow it)."""
        service = self._memory_service("add memory")
        session = self._invocation_context.session
        await service.add_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memories=memories,
            custom_metadata=custom_metadata,
        )

    async def search_memory(self, query: str) -> SearchMemoryResponse:
        """Searches this user's memory for ``query``."""
        service = self._memory_service("search memory")
        session = self._invocation_context.session
        return await service.search_memory(
            app_name=session.app_name, user_id=session.user_id, query=query
        )
