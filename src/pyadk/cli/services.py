"""The services named by ``--session-uri``, ``--artifact-uri`` and ``--memory-uri`` (in
memory by default)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.cli.errors import CliError
from pyadk.memory.base_memory_service import BaseMemoryService
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.in_memory_session_service import InMemorySessionService


def session_service_for(uri: str | None) -> BaseSessionService:
    """``memory://``, ``sqlite:///path.db``, ``postgresql://...`` or None (in memory)."""
    if not uri:
        return InMemorySessionService()
    from pyadk.sessions.uri import session_service_from_uri

    try:
        return session_service_from_uri(uri)
    except (ValueError, ImportError) as error:
        raise CliError(f"--session-uri: {error}") from error


def artifact_service_for(
    uri: str | None, session_service: BaseSessionService
) -> BaseArtifactService:
    """``memory://``, ``file://DIR``, a database URI or None (in memory).

    A database URI equal to the one ``session_service`` was opened on shares it."""
    if not uri:
        return InMemoryArtifactService()
    from pyadk.artifacts.uri import artifact_service_from_uri

    try:
        return artifact_service_from_uri(uri, session_service=session_service)
    except (ValueError, ImportError) as error:
        raise CliError(f"--artifact-uri: {error}") from error


def memory_service_for(uri: str | None) -> BaseMemoryService:
    """``memory://``, ``sqlite:///path.db`` or None (in memory)."""
    if not uri:
        return InMemoryMemoryService()
    from pyadk.memory.uri import memory_service_from_uri

    try:
        return memory_service_from_uri(uri)
    except (ValueError, ImportError) as error:
        raise CliError(f"--memory-uri: {error}") from error


F = TypeVar("F", bound=Callable[..., object])


def store_options(command: F) -> F:
    """``--session-uri``, ``--artifact-uri`` and ``--memory-uri`` (with google-adk's
    spellings) for a command that opens the stores with :func:`session_service_for`,
    :func:`artifact_service_for` and :func:`memory_service_for`."""
    command = click.option(
        "--memory-uri",
        "--memory_service_uri",
        "memory_uri",
        default=None,
        help="Memory store (load_memory, preload_memory): memory:// (default), sqlite:///path.db.",
    )(command)
    command = click.option(
        "--artifact-uri",
        "--artifact_service_uri",
        "artifact_uri",
        default=None,
        help="Artifact store: memory:// (default), file://DIR, sqlite:///path.db, "
        "postgresql://... (the --session-uri database is shared when the URIs are equal).",
    )(command)
    return click.option(
        "--session-uri",
        "--session_service_uri",
        "session_uri",
        default=None,
        help="Session store: memory:// (default), sqlite:///path.db, postgresql://...",
    )(command)
