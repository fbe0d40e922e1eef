"""The personas a scenario may name by id: ``EXPERT``, ``NOVICE`` and ``EVALUATOR``
(google-adk's ids; pyadk words their behaviours its own way)."""

from __future__ import annotations

from pyadk.evaluation.simulation.user_simulator_personas import (
    UserBehavior,
    UserPersona,
    UserPersonaRegistry,
)

_STICK_TO_PLAN = UserBehavior(
    name="Follows the plan",
    description="Moves through the conversation plan one goal at a time.",
    behavior_instructions=[
        "Once the agent has done what you asked, ask for the next goal of the plan.",
        "Never ask again for something the agent already did.",
        "Never invent goals or details the plan does not give.",
    ],
    violation_rubrics=[
        "The message asks again for a goal already done.",
        "The message adds a goal or a detail that is not in the plan.",
    ],
)
_GIVE_DETAILS = UserBehavior(
    name="Gives details up front",
    description="States a goal together with the details the agent needs for it.",
    behavior_instructions=["When you ask for a goal, give its details from the plan too."],
    violation_rubrics=["The message names a goal but leaves out details the plan gives."],
)
_WAIT_TO_BE_ASKED = UserBehavior(
    name="Waits to be asked",
    description="States goals only; gives details when the agent asks for them.",
    behavior_instructions=["Name the goal only; answer the agent's questions when asked."],
    violation_rubrics=["The message gives details the agent has not asked for yet."],
)
_CORRECTS = UserBehavior(
    name="Corrects the agent",
    description="Points out a wrong answer or a wrong action once, then gives up.",
    behavior_instructions=[
        "When the agent is wrong, say so and ask it to try again, once.",
        "When it is wrong a second time, end the conversation.",
    ],
    violation_rubrics=[
        "The message accepts an answer that contradicts the plan.",
        "The conversation goes on after the agent failed twice.",
    ],
)
_TRUSTS = UserBehavior(
    name="Trusts the agent",
    description="Does not check the agent's answers; ends when the agent fails.",
    behavior_instructions=["Do not correct the agent; end the conversation if it fails."],
    violation_rubrics=["The message corrects the agent or asks it to retry."],
)
_BRIEF = UserBehavior(
    name="Brief",
    description="Short, matter-of-fact messages.",
    behavior_instructions=["Write one or two short sentences."],
    violation_rubrics=["The message is chatty or longer than a few sentences."],
)
_FRIENDLY = UserBehavior(
    name="Conversational",
    description="Writes like a person chatting, not like a command line.",
    behavior_instructions=["Write naturally, in plain everyday words."],
    violation_rubrics=["The message reads like a terse command or uses jargon."],
)

EXPERT = UserPersona(
    id="EXPERT",
    description="Knows exactly what they want and expects the agent to do it quickly.",
    behaviors=[_STICK_TO_PLAN, _GIVE_DETAILS, _CORRECTS, _BRIEF],
)
NOVICE = UserPersona(
    id="NOVICE",
    description="Unsure how to get what they need; relies on the agent's guidance.",
    behaviors=[_STICK_TO_PLAN, _WAIT_TO_BE_ASKED, _TRUSTS, _FRIENDLY],
)
EVALUATOR = UserPersona(
    id="EVALUATOR",
    description="Checks whether the agent can reach the goals of the plan.",
    behaviors=[_STICK_TO_PLAN, _GIVE_DETAILS, _TRUSTS, _FRIENDLY],
)


def get_default_persona_registry() -> UserPersonaRegistry:
    """A registry of the prebuilt personas."""
    registry = UserPersonaRegistry()
    for persona in (EXPERT, NOVICE, EVALUATOR):
        registry.register_persona(persona.id, persona)
    return registry
