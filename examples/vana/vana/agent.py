"""VANA: an orchestrator that hands requests silently to real specialists.

``root_agent`` is what ``pyadk web examples/vana`` and ``pyadk run examples/vana/vana``
load. The model: ``$VANA_MODEL`` when set ("offline" for the stand-in, "default" for
pyadk's default model, or a model name); else pyadk's default model; else, when pyadk has
none, the deterministic offline stand-in (``offline_model.py``).
"""

from __future__ import annotations

import os

from pyadk.agents import LlmAgent
from pyadk.models import BaseLlm
from pyadk.models.defaults import get_default_model

from . import prompts, specialists
from .offline_model import create_offline_model

MODEL_ENV = "VANA_MODEL"


def choose_model() -> BaseLlm | str:
    """The model of the agent tree (see the module docstring); "" is pyadk's default."""
    choice = os.environ.get(MODEL_ENV, "").strip()
    if choice == "offline" or (choice in ("", "default") and get_default_model() is None):
        return create_offline_model()
    return "" if choice == "default" else choice


def create_root_agent(model: BaseLlm | str | None = None) -> LlmAgent:
    """The VANA tree; every agent uses ``model`` (default: :func:`choose_model`)."""
    return LlmAgent(
        name=prompts.ORCHESTRATOR,
        description="VANA: one assistant for developers, backed by specialists",
        model=choose_model() if model is None else model,
        instruction=prompts.ORCHESTRATOR_INSTRUCTION,
        sub_agents=[
            specialists.code_reviewer(),
            specialists.security_scanner(),
            specialists.data_analyst(),
            specialists.full_review(),
        ],
    )


root_agent = create_root_agent()
