"""ConversationScenario: what a simulated user wants of the agent (an eval case's
``conversationScenario``, instead of a fixed ``conversation``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.simulation.pre_built_personas import get_default_persona_registry
from pyadk.evaluation.simulation.user_simulator_personas import UserPersona


class ConversationScenario(EvalBaseModel):
    """A starting prompt, sent as it is, and a plan the simulated user follows after."""

    starting_prompt: str
    """The first user message."""
    conversation_plan: str
    """What the user wants, in order, with the details they can give; the simulator
    answers the agent according to it and ends the conversation when it is done."""
    user_persona: UserPersona | None = None
    """Who the user is; a string names a prebuilt persona (``EXPERT``, ``NOVICE``,
    ``EVALUATOR``)."""

    @field_validator("user_persona", mode="before")
    @classmethod
    def _persona_by_id(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return get_default_persona_registry().get_persona(value)
            except KeyError as error:
                raise ValueError(error.args[0]) from None
        return value


class ConversationScenarios(EvalBaseModel):
    """A list of scenarios (a scenarios file)."""

    scenarios: list[ConversationScenario] = Field(default_factory=list)
