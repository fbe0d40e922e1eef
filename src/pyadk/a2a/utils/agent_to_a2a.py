"""to_a2a: a Starlette (ASGI) app serving a pyadk agent over A2A JSON-RPC.

The app answers ``GET /.well-known/agent-card.json`` with the agent card and A2A
JSON-RPC calls (``SendMessage``, ``SendStreamingMessage``, ``GetTask``, ...) on ``/``
(both under ``/<rpc_path>`` when given). The routes are added when the app starts
(its lifespan), because building the card may list toolsets' tools.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from a2a.client.card_resolver import parse_agent_card
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import (
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    PushNotificationConfigStore,
    TaskStore,
)
from a2a.types import AgentCard
from starlette.applications import Starlette

from pyadk.a2a.executor.a2a_agent_executor import A2aAgentExecutor
from pyadk.a2a.utils.agent_card_builder import AgentCardBuilder
from pyadk.agents.base_agent import BaseAgent
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.auth.credential_service.in_memory_credential_service import (
    InMemoryCredentialService,
)
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.runners import Runner
from pyadk.sessions.in_memory_session_service import InMemorySessionService

logger = logging.getLogger(__name__)

AGENT_CARD_WELL_KNOWN_PATH = "/.well-known/agent-card.json"


def _load_agent_card(agent_card: AgentCard | str | None) -> AgentCard | None:
    if agent_card is None or isinstance(agent_card, AgentCard):
        return agent_card
    try:
        data = json.loads(Path(agent_card).read_text(encoding="utf-8"))
        return parse_agent_card(data)
    except Exception as error:
        raise ValueError(f"Failed to load agent card from {agent_card}: {error}") from error


def _default_runner(agent: BaseAgent) -> Runner:
    return Runner(
        app_name=agent.name or "adk_agent",
        agent=agent,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
        memory_service=InMemoryMemoryService(),
        credential_service=InMemoryCredentialService(),
    )


def to_a2a(
    agent: BaseAgent,
    *,
    host: str = "localhost",
    port: int = 8000,
    protocol: str = "http",
    rpc_path: str = "",
    agent_card: AgentCard | str | None = None,
    push_config_store: PushNotificationConfigStore | None = None,
    task_store: TaskStore | None = None,
    runner: Runner | None = None,
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
    agent_executor_factory: Callable[[Runner], A2aAgentExecutor] | None = None,
) -> Starlette:
    """Serves ``agent`` over A2A; run the result with uvicorn.

    The card advertises ``{protocol}://{host}:{port}/{rpc_path}`` unless ``agent_card``
    (a card, or the path of a card JSON file) is given. ``runner`` defaults to one with
    in-memory services; ``task_store`` and ``push_config_store`` default to in-memory
    stores; ``lifespan`` runs inside the app's own startup/shutdown.
    """
    provided_card = _load_agent_card(agent_card)
    prefix = "/" + rpc_path.strip("/") if rpc_path.strip("/") else ""
    if provided_card is not None and prefix:
        logger.warning(
            "to_a2a got both agent_card and rpc_path: the routes live under %r but the "
            "given card's URL is served unchanged",
            prefix,
        )
    if agent_executor_factory is not None:
        executor = agent_executor_factory(runner or _default_runner(agent))
    else:
        executor = A2aAgentExecutor(runner=runner or (lambda: _default_runner(agent)))
    builder = AgentCardBuilder(agent=agent, rpc_url=f"{protocol}://{host}:{port}{prefix}/")
    tasks = task_store if task_store is not None else InMemoryTaskStore()
    pushes = (
        push_config_store
        if push_config_store is not None
        else InMemoryPushNotificationConfigStore()
    )

    async def add_routes(app: Starlette) -> None:
        if getattr(app.state, "a2a_card", None) is not None:
            return  # started before: the routes are in place
        card = provided_card if provided_card is not None else await builder.build()
        handler = DefaultRequestHandler(
            agent_executor=executor,
            task_store=tasks,
            agent_card=card,
            push_config_store=pushes,
        )
        app.state.a2a_card = card
        app.routes.extend(
            [
                *create_agent_card_routes(card, card_url=prefix + AGENT_CARD_WELL_KNOWN_PATH),
                *create_jsonrpc_routes(handler, prefix or "/", enable_v0_3_compat=True),
            ]
        )

    @asynccontextmanager
    async def combined_lifespan(app: Starlette) -> AsyncIterator[None]:
        await add_routes(app)
        if lifespan is None:
            yield
        else:
            async with lifespan(app):
                yield

    return Starlette(lifespan=combined_lifespan)
