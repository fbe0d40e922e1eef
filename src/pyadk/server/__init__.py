"""The API server (FastAPI) and the UI event protocol.

``create_app`` needs the ``server`` extra (``pip install pyadk[server]``); the agent
loader and the UI event protocol do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk.server.agent_loader import AgentLoader, AgentLoadError, AppNotFoundError
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import PROTOCOL_VERSION, UI_EVENT_ADAPTER, UiEvent

if TYPE_CHECKING:
    from pyadk.server.app import create_app

__all__ = [
    "PROTOCOL_VERSION",
    "UI_EVENT_ADAPTER",
    "AgentLoadError",
    "AgentLoader",
    "AppNotFoundError",
    "UiEvent",
    "UiEventConverter",
    "create_app",
]


def __getattr__(name: str) -> Any:
    if name == "create_app":  # imports FastAPI: only when asked for
        from pyadk.server.app import create_app

        return create_app
    raise AttributeError(f"module 'pyadk.server' has no attribute {name!r}")
