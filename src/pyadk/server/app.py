"""create_app: the FastAPI application of ``pyadk api_server`` / ``pyadk web``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import ValidationError
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles

from pyadk.agents.base_agent import BaseAgent
from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.memory.base_memory_service import BaseMemoryService
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.server import (
    routes_artifacts,
    routes_eval,
    routes_graph,
    routes_live,
    routes_run,
    routes_sessions,
    routes_trace,
    routes_ui,
)
from pyadk.server.agent_loader import AgentLoader
from pyadk.server.context import ServerContext, ServerSettings
from pyadk.server.routes_ui import RUN_ID_HEADER
from pyadk.server.security import (
    DEFAULT_MAX_REQUEST_BYTES,
    LOOPBACK_HOSTS,
    SecurityMiddleware,
    normalize_tokens,
)
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.in_memory_session_service import InMemorySessionService
from pyadk.version import __version__

STATIC_DIR = Path(__file__).parent / "static"
"""The dev web UI served at ``/dev-ui/`` when ``web_ui=True``."""


def create_app(
    agents_dir: str | Path | None = None,
    *,
    agents: Mapping[str, BaseAgent] | None = None,
    session_service: BaseSessionService | None = None,
    artifact_service: BaseArtifactService | None = None,
    memory_service: BaseMemoryService | None = None,
    plugins: Sequence[BasePlugin] = (),
    auth_token: str | Mapping[str, str] | None = None,
    allow_origins: Sequence[str] = (),
    trusted_hosts: Sequence[str] | None = LOOPBACK_HOSTS,
    web_ui: bool | str | Path = False,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    settings: ServerSettings | None = None,
    trace: bool = False,
) -> FastAPI:
    """The API server for the apps of ``agents_dir`` and/or ``agents`` (name -> agent).

    Services default to in-memory ones. ``auth_token``: one token (any user) or
    ``{token: user_id}`` (each token reaches only its user's data). ``allow_origins``:
    origins allowed to call the API from a browser (CORS). ``trusted_hosts``: ``Host``
    names served (loopback by default; ``["*"]`` for any). ``web_ui``: serve the dev UI
    at ``/dev-ui/`` (True for the bundled one, or a directory). ``trace``: keep pyadk's
    OpenTelemetry spans in memory for the ``/debug/trace`` routes (needs
    opentelemetry-sdk; see docs/telemetry.md). See docs/server.md.
    """
    if agents_dir is None and not agents:
        raise ValueError("create_app needs agents_dir, agents, or both.")
    if max_request_bytes <= 0:
        raise ValueError("max_request_bytes must be positive.")
    ctx = ServerContext(
        loader=AgentLoader(agents_dir) if agents_dir is not None else None,
        agents=agents or {},
        session_service=session_service or InMemorySessionService(),
        artifact_service=artifact_service or InMemoryArtifactService(),
        memory_service=memory_service or InMemoryMemoryService(),
        plugins=plugins,
        settings=settings or ServerSettings(),
        max_request_bytes=max_request_bytes,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await ctx.close()

    app = FastAPI(title="pyadk API server", version=__version__, lifespan=lifespan)
    app.state.pyadk = ctx
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ValidationError, _validation_error)
    routers = (
        routes_sessions,
        routes_artifacts,
        routes_run,
        routes_ui,
        routes_live,
        routes_graph,
        routes_eval,
    )
    for module in routers:
        app.include_router(module.make_router(ctx))
    app.state.span_store = routes_trace.install_span_store() if trace else None
    app.include_router(routes_trace.make_router(app.state.span_store))
    if web_ui:
        _mount_web_ui(app, STATIC_DIR if web_ui is True else Path(web_ui))

    app.add_middleware(
        SecurityMiddleware,
        tokens=normalize_tokens(auth_token),
        allow_origins=list(allow_origins),
        trusted_hosts=None if trusted_hosts is None else list(trusted_hosts),
        max_request_bytes=max_request_bytes,
    )
    if allow_origins:  # added last: outermost, so errors carry CORS headers too
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(allow_origins),
            allow_methods=["*"],
            allow_headers=["*"],
            expose_headers=[RUN_ID_HEADER],
        )
    return app


def _mount_web_ui(app: FastAPI, directory: Path) -> None:
    if not (directory / "index.html").is_file():
        raise FileNotFoundError(f"web_ui: no index.html in {directory}")
    app.mount("/dev-ui", StaticFiles(directory=directory, html=True), name="dev-ui")

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/dev-ui/")


def _location(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if p != "body"] or ["body"]
    return ".".join(parts)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with FastAPI's ``detail`` list plus a one-line ``message``."""
    errors: Sequence[Any] = []
    if isinstance(exc, RequestValidationError | ValidationError):
        errors = exc.errors()
    summary = "; ".join(f"{_location(e.get('loc', ()))}: {e.get('msg', '')}" for e in errors[:5])
    if len(errors) > 5:
        summary += f"; and {len(errors) - 5} more"
    detail = jsonable_encoder(
        [{k: v for k, v in e.items() if k != "input"} for e in errors],
        custom_encoder={Exception: str},
    )
    return JSONResponse(
        status_code=422, content={"message": f"Invalid request: {summary}", "detail": detail}
    )
