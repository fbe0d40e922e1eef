"""`pyadk web` / `pyadk api_server`: the HTTP server (uvicorn) over a folder of agents."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import click

from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.cli.errors import CliError
from pyadk.cli.services import (
    artifact_service_for,
    memory_service_for,
    session_service_for,
    store_options,
)
from pyadk.memory.base_memory_service import BaseMemoryService
from pyadk.sessions.base_session_service import BaseSessionService

CONFIG_ENV = "PYADK_SERVE_CONFIG"
"""Carries the server settings to the app factory that ``--reload`` workers import."""

AUTH_TOKEN_ENV = "PYADK_AUTH_TOKEN"
"""Bearer token required by the server when ``--auth-token`` is not given."""

TRACE_ENV = "PYADK_TRACE"
"""``1``/``true``: record spans for the ``/debug/trace`` routes, as ``--trace`` does."""

LOOPBACK_BINDS = frozenset({"127.0.0.1", "localhost", "::1"})
ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})


@dataclass
class ServeOptions:
    """The settings of one server."""

    agents_dir: str
    web_ui: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    allow_origins: list[str] = field(default_factory=list)
    auth_token: str | None = None
    session_uri: str | None = None
    artifact_uri: str | None = None
    memory_uri: str | None = None
    log_level: str = "info"
    reload: bool = False
    trusted_hosts: list[str] = field(default_factory=list)
    trace: bool = False

    def effective_trusted_hosts(self) -> list[str] | None:
        """``Host`` names the server answers: given ones, else what the bind address implies.

        None leaves the server's default (loopback names only)."""
        if self.trusted_hosts:
            return list(self.trusted_hosts)
        if self.host in LOOPBACK_BINDS:
            return None
        if self.host in ANY_ADDRESS:
            return ["*"]
        return [self.host, *sorted(LOOPBACK_BINDS - {""})]


def build_app(options: ServeOptions) -> Any:
    """The FastAPI app for ``options`` (CliError when the server extra is missing)."""
    try:
        from pyadk.server.app import create_app
    except ImportError as error:
        raise CliError(
            f"The HTTP server is not available ({error}): install it with "
            "pip install 'pyadk[server]'."
        ) from error
    extra: dict[str, Any] = {}
    trusted = options.effective_trusted_hosts()
    if trusted is not None:
        extra["trusted_hosts"] = trusted
    sessions = session_service_for(options.session_uri)
    artifacts = artifact_service_for(options.artifact_uri, sessions)
    memory = memory_service_for(options.memory_uri)
    try:
        app = create_app(
            options.agents_dir,
            session_service=sessions,
            artifact_service=artifacts,
            memory_service=memory,
            auth_token=options.auth_token,
            allow_origins=tuple(options.allow_origins),
            web_ui=options.web_ui,
            trace=options.trace,
            **extra,
        )
    except RuntimeError as error:  # --trace without opentelemetry-sdk
        raise CliError(str(error)) from error
    _close_on_shutdown(app, sessions, artifacts, memory)
    return app


def _close_on_shutdown(
    app: Any,
    sessions: BaseSessionService,
    artifacts: BaseArtifactService,
    memory: BaseMemoryService,
) -> None:
    """Closes the services the command opened once the app has shut down."""
    serve_app = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(instance: Any) -> AsyncIterator[Any]:
        try:
            async with serve_app(instance) as state:
                yield state
        finally:
            await _close(sessions, artifacts, memory)

    app.router.lifespan_context = lifespan


def _check_stores(options: ServeOptions) -> None:
    """Opens and closes the stores the URIs name, so that a bad ``--session-uri``,
    ``--artifact-uri`` or ``--memory-uri`` stops the command here rather than in each
    reload worker."""
    sessions = session_service_for(options.session_uri)
    try:
        artifacts = artifact_service_for(options.artifact_uri, sessions)
        memory = memory_service_for(options.memory_uri)
    except CliError:
        asyncio.run(sessions.close())
        raise
    asyncio.run(_close(sessions, artifacts, memory))


async def _close(
    sessions: BaseSessionService, artifacts: BaseArtifactService, memory: BaseMemoryService
) -> None:
    await memory.close()
    await artifacts.close()  # before the session service it may share
    await sessions.close()


def app_from_environment() -> Any:
    """App factory for uvicorn's ``--reload`` workers: settings come from the environment."""
    return build_app(ServeOptions(**json.loads(os.environ[CONFIG_ENV])))


def serve(options: ServeOptions) -> None:
    """Runs uvicorn until interrupted."""
    agents_dir = Path(options.agents_dir)
    if not agents_dir.is_dir():
        raise CliError(f"Agents directory not found: {agents_dir.resolve()}")
    try:
        import uvicorn
    except ImportError as error:
        raise CliError("uvicorn is not installed: pip install 'pyadk[server]'.") from error
    options.agents_dir = str(agents_dir.resolve())
    common: dict[str, Any] = {
        "host": options.host,
        "port": options.port,
        "log_level": options.log_level,
    }
    if options.reload:
        _check_stores(options)
        os.environ[CONFIG_ENV] = json.dumps(asdict(options))
        uvicorn.run(
            "pyadk.cli.serve_cmd:app_from_environment",
            factory=True,
            reload=True,
            reload_dirs=[options.agents_dir],
            **common,
        )
        return
    uvicorn.run(build_app(options), **common)


def _server_command(name: str, web_ui: bool, summary: str) -> click.Command:
    @click.command(name, help=summary)
    @click.argument(
        "agents_dir", type=click.Path(file_okay=False, path_type=Path), default=Path(".")
    )
    @click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
    @click.option("--port", default=8000, show_default=True, type=int, help="Port to bind.")
    @click.option(
        "--allow-origins",
        "--allow_origins",
        "allow_origins",
        multiple=True,
        help="An origin allowed by CORS (repeat the option; none by default).",
    )
    @click.option(
        "--auth-token",
        envvar=AUTH_TOKEN_ENV,
        default=None,
        help=f"Require 'Authorization: Bearer TOKEN' on every request (env {AUTH_TOKEN_ENV}).",
    )
    @store_options
    @click.option(
        "--log-level",
        "--log_level",
        "log_level",
        default="info",
        show_default=True,
        type=click.Choice(["critical", "error", "warning", "info", "debug", "trace"]),
    )
    @click.option(
        "--trusted-host",
        "trusted_hosts",
        multiple=True,
        help="A Host header name the server answers (repeat; '*' for any). Default: the "
        "loopback names, or any host when --host is 0.0.0.0.",
    )
    @click.option(
        "--trace/--no-trace",
        envvar=TRACE_ENV,
        default=False,
        show_default=True,
        help="Record pyadk's OpenTelemetry spans in memory for the /debug/trace routes "
        f"(needs opentelemetry-sdk; env {TRACE_ENV}).",
    )
    @click.option("--reload/--no-reload", default=False, show_default=True)
    def command(
        agents_dir: Path,
        host: str,
        port: int,
        allow_origins: tuple[str, ...],
        auth_token: str | None,
        session_uri: str | None,
        artifact_uri: str | None,
        memory_uri: str | None,
        log_level: str,
        trusted_hosts: tuple[str, ...],
        trace: bool,
        reload: bool,
    ) -> None:
        options = ServeOptions(
            agents_dir=str(agents_dir),
            web_ui=web_ui,
            host=host,
            port=port,
            allow_origins=list(allow_origins),
            auth_token=auth_token or None,
            session_uri=session_uri,
            artifact_uri=artifact_uri,
            memory_uri=memory_uri,
            log_level=log_level,
            reload=reload,
            trusted_hosts=list(trusted_hosts),
            trace=trace,
        )
        try:
            serve(options)
        except CliError as error:
            raise click.ClickException(str(error)) from error

    return command


web_command = _server_command(
    "web", True, "Serve the agents in AGENTS_DIR with the web dev UI and the API."
)
api_server_command = _server_command(
    "api_server", False, "Serve the agents in AGENTS_DIR over the ADK-compatible HTTP API."
)
