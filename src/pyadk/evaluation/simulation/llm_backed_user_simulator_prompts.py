"""The instructions a model gets to play the user (pyadk's wording; custom
instructions use google-adk's ``{{ placeholder }}`` names)."""

from __future__ import annotations

from pyadk.evaluation.simulation._templates import check_template, render
from pyadk.evaluation.simulation.user_simulator_personas import UserPersona

REQUIRED_PLACEHOLDERS = ["stop_signal", "conversation_plan", "conversation_history"]

DEFAULT_USER_SIMULATOR_INSTRUCTIONS = """\
You play a user talking to an AI agent, to test the agent. Write the user's next \
message, and only that message.

Read the agent's last message first and react to it:
- If it asks you something, answer with what the conversation plan says; if the plan \
does not say, tell the agent you do not know. Never make details up.
- If it did what you asked, go on with the next goal of the plan (skip goals it \
already did).
- If it made a mistake or failed, point it out and ask it to try again, once.
- Reply with {{ stop_signal }} and nothing else when every goal of the plan is done, \
when the agent failed at the same goal twice, when it says it cannot go on, or when \
it hands you over to a person.
{{ persona_section }}
<conversation_plan>
{{ conversation_plan }}
</conversation_plan>

<conversation_history>
{{ conversation_history }}
</conversation_history>
"""

_PERSONA_SECTION = """
Stay in this persona (the plan wins where they disagree):
<persona>
{{ persona }}
</persona>
"""


def get_llm_backed_user_simulator_prompt(
    conversation_plan: str,
    conversation_history: str,
    stop_signal: str,
    custom_instructions: str | None = None,
    user_persona: UserPersona | None = None,
) -> str:
    """The simulator's prompt: the custom instructions or pyadk's, filled in."""
    values: dict[str, object] = {
        "stop_signal": stop_signal,
        "conversation_plan": conversation_plan,
        "conversation_history": conversation_history,
    }
    if user_persona is not None:
        values["persona"] = user_persona
    if custom_instructions is not None:
        if user_persona is not None:
            check_template(
                custom_instructions,
                [*REQUIRED_PLACEHOLDERS, "persona"],
                "custom_instructions of a scenario with a user persona",
            )
        return render(custom_instructions, values)
    persona_section = render(_PERSONA_SECTION, values) if user_persona is not None else ""
    values["persona_section"] = persona_section
    return render(DEFAULT_USER_SIMULATOR_INSTRUCTIONS, values)
