"""Apps: an agent application (``App``) and its events compaction.

Members are imported on first use, so ``import pyadk.apps`` costs nothing until one is.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyadk.apps._configs import EventsCompactionConfig, ResumabilityConfig
    from pyadk.apps.app import App
    from pyadk.apps.base_events_summarizer import BaseEventsSummarizer
    from pyadk.apps.llm_event_summarizer import LlmEventSummarizer

__all__ = [
    "App",
    "BaseEventsSummarizer",
    "EventsCompactionConfig",
    "LlmEventSummarizer",
    "ResumabilityConfig",
]

_MODULES = {
    "App": "app",
    "BaseEventsSummarizer": "base_events_summarizer",
    "EventsCompactionConfig": "_configs",
    "LlmEventSummarizer": "llm_event_summarizer",
    "ResumabilityConfig": "_configs",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
