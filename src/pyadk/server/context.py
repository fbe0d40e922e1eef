"""ServerContext: the services, agents and runners one API server shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import HTTPException

from pyadk.agents.base_agent import BaseAgent
from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.auth.credential_service.in_memory_credential_service import (
    InMemoryCredentialService,
)
from pyadk.memory.base_memory_service import BaseMemoryService
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.runners import Runner
from pyadk.server.agent_loader import AgentLoader, AgentLoadError, AppNotFoundError
from pyadk.server.security import DEFAULT_MAX_REQUEST_BYTES
from pyadk.server.turn_start import TurnStartPlugin
from pyadk.server.ui_runs import UiRunRegistry
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.session import Session

if TYPE_CHECKING:
    from pyadk.apps import App


@dataclass(frozen=True)
class ServerSettings:
    """Tunables of the streaming endpoints."""

    sse_keepalive_seconds: float = 15.0
    """Idle seconds before a keep-alive comment on a UI event stream."""
    max_finished_runs: int = 100
    """Finished UI runs kept for resuming (oldest dropped first)."""
    filter_handoff_text: bool = True
    """Route "Transferring you to ..." sentences to the thinking panel."""


class ServerContext:
    """Agents (from an AgentLoader and/or given objects), shared services, runners."""

    def __init__(
        self,
        *,
        loader: AgentLoader | None,
        agents: Mapping[str, BaseAgent],
        session_service: BaseSessionService,
        artifact_service: BaseArtifactService,
        memory_service: BaseMemoryService,
        plugins: Sequence[BasePlugin],
        settings: ServerSettings,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    ) -> None:
        for name, agent in agents.items():
            if not isinstance(agent, BaseAgent):
                kind = type(agent).__name__
                raise TypeError(f"agents[{name!r}] must be a BaseAgent, got {kind}.")
        self.loader = loader
        self.agents = dict(agents)
        self.session_service = session_service
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.plugins = list(plugins)
        self.settings = settings
        self.max_request_bytes = max_request_bytes
        """The largest request body (and ``/run_live`` message) accepted."""
        self.ui_runs = UiRunRegistry(max_finished=settings.max_finished_runs)
        self.credential_service = InMemoryCredentialService()
        """End users' credentials (tools' ``adk_request_credential`` answers), kept in
        memory as google-adk's server does."""
        self._runners: dict[str, Runner] = {}

    def list_apps(self) -> list[str]:
        """App names: those of the agents directory and the given agents, sorted."""
        names = set(self.agents)
        if self.loader is not None:
            names.update(self.loader.list_apps())
        return sorted(names)

    def require_app(self, app_name: str) -> None:
        """404 unless ``app_name`` is an app of this server (without importing it)."""
        if app_name not in self.list_apps():
            available = ", ".join(self.list_apps()) or "none"
            raise HTTPException(
                status_code=404, detail=f"App not found: {app_name!r}. Available apps: {available}."
            )

    def agent(self, app_name: str) -> BaseAgent:
        """The app's root agent: 404 for an unknown app, 500 if it fails to load."""
        if app_name in self.agents:
            return self.agents[app_name]
        self.require_app(app_name)
        assert self.loader is not None
        try:
            return self.loader.load_agent(app_name)
        except AppNotFoundError as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from exc
        except AgentLoadError as exc:
            raise HTTPException(status_code=500, detail=str(exc)) from exc

    def runner(self, app_name: str) -> Runner:
        """The app's Runner (one per app, sharing the server's services). Its first
        plugin tells the streaming routes when a turn began (``turn_start``)."""
        runner = self._runners.get(app_name)
        if runner is None:
            agent = self.agent(app_name)
            plugins: list[BasePlugin] = [TurnStartPlugin(), *self.plugins]
            app = self._app(app_name)
            if app is not None:  # an exported App: its plugins and compaction apply too
                app = app.model_copy(update={"plugins": [*plugins, *app.plugins]})
            runner = Runner(
                app=app,
                app_name=app_name,
                agent=None if app is not None else agent,
                plugins=None if app is not None else plugins,
                session_service=self.session_service,
                artifact_service=self.artifact_service,
                memory_service=self.memory_service,
                credential_service=self.credential_service,
            )
            self._runners[app_name] = runner
        return runner

    def _app(self, app_name: str) -> App | None:
        """The ``App`` the app's module exports (None for a bare ``root_agent``)."""
        if app_name in self.agents or self.loader is None:
            return None
        return self.loader.load_app(app_name)

    async def session(self, app_name: str, user_id: str, session_id: str) -> Session:
        """The stored session, or 404."""
        session = await self.session_service.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
        if session is None:
            raise HTTPException(status_code=404, detail=f"Session not found: {session_id!r}.")
        return session

    async def close(self) -> None:
        """Cancels UI runs and closes the runners' toolsets and plugins."""
        await self.ui_runs.close()
        for runner in self._runners.values():
            await runner.close()
