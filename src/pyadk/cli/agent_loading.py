"""Loads the root agent of one agent directory for `pyadk run`.

The discovery rules are the server's (:class:`pyadk.server.agent_loader.AgentLoader`,
google-adk's rules): ``AGENT_DIR``'s parent is the agents directory, the app's ``.env``
is loaded, and ``app`` (an ``App``) or ``root_agent`` comes from ``__init__.py`` or
``agent.py``. This module only turns the loader's errors into one-line CLI errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pyadk.agents.base_agent import BaseAgent
from pyadk.cli.errors import CliError
from pyadk.server.agent_loader import AgentLoader, AgentLoadError, AppNotFoundError

if TYPE_CHECKING:
    from pyadk.apps.app import App


def load_agent(agent_dir: str | Path) -> tuple[str, BaseAgent]:
    """The app name (the directory's name) and its root agent; CliError if unusable."""
    name, agent, _ = load_app(agent_dir)
    return name, agent


def load_app(agent_dir: str | Path) -> tuple[str, BaseAgent, App | None]:
    """The app name (the directory's name), its root agent, and the ``App`` it exports
    as ``app`` (None for a bare ``root_agent``); CliError if unusable."""
    path = Path(agent_dir).expanduser().resolve()
    if not path.is_dir():
        raise CliError(f"Agent directory not found: {path}")
    loader = AgentLoader(path.parent)
    try:
        return path.name, loader.load_agent(path.name), loader.load_app(path.name)
    except AppNotFoundError as error:
        reason = loader.skipped().get(path.name)
        if reason is None:
            raise CliError(str(error)) from error
        raise CliError(f"{path} is not an agent app: {reason}.") from error
    except AgentLoadError as error:
        raise CliError(str(error)) from error
