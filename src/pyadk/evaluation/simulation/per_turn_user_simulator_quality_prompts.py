"""The judge prompt of ``per_turn_user_simulator_quality_v1`` (pyadk's wording) and how
its verdict is read."""

from __future__ import annotations

import re

from pyadk.evaluation._judge_answers import NO, YES, json_object
from pyadk.evaluation.simulation._templates import render
from pyadk.evaluation.simulation.user_simulator_personas import UserPersona

PER_TURN_USER_SIMULATOR_QUALITY_PROMPT = """\
You check a simulated user that is testing an AI agent. The simulated user follows a \
conversation plan; decide whether its latest message (the generated user response) is \
a good next message after the conversation so far.

It is valid unless it does one of these:
- asks again for a goal of the plan the agent already did, or leaves the plan's order;
- adds goals, or details (names, numbers, addresses), that the plan does not give;
- answers the agent's question wrongly, or makes up an answer the plan does not have;
- gives details before the agent asked for them, or asks for two goals at once;
- lets a wrong answer of the agent pass;
- ends the conversation with {{ stop_signal }} while goals are left and the agent has \
not failed, or goes on when every goal is done, when the agent failed twice, or when \
it handed the user over to a person;
- sounds unlike a person: stiff, jargon-laden, far longer than needed.
{{ persona_section }}
<conversation_plan>
{{ conversation_plan }}
</conversation_plan>

<conversation_history>
{{ conversation_history }}
</conversation_history>

<generated_user_response>
{{ generated_user_response }}
</generated_user_response>

Reply with one JSON object and nothing else:
{"reasoning": "<a few sentences>", "is_valid": true or false}
"""

_PERSONA_SECTION = """
The simulated user also plays this persona; breaking one of its behaviours makes the \
message invalid too:
<persona>
{{ persona }}
</persona>
"""

_LOOSE = re.compile(r"is_valid\W*?[:=]\s*\[?\s*[\"']?([A-Za-z_]+)", re.IGNORECASE)


def get_per_turn_user_simulator_quality_prompt(
    conversation_plan: str,
    conversation_history: str,
    generated_user_response: str,
    stop_signal: str,
    user_persona: UserPersona | None = None,
) -> str:
    """The judge's prompt about one simulated user message."""
    values: dict[str, object] = {
        "conversation_plan": conversation_plan,
        "conversation_history": conversation_history,
        "generated_user_response": generated_user_response,
        "stop_signal": stop_signal,
        "persona_section": "",
    }
    if user_persona is not None:
        values["persona_section"] = render(_PERSONA_SECTION, {"persona": user_persona})
    return render(PER_TURN_USER_SIMULATOR_QUALITY_PROMPT, values)


def parse_is_valid(answer: str) -> tuple[float | None, str | None]:
    """(1.0 valid / 0.0 invalid / None unreadable, the judge's reasoning)."""
    data = json_object(answer)
    label: object = None
    reasoning: str | None = None
    if data is not None and "is_valid" in data:
        label = data["is_valid"]
        given = data.get("reasoning")
        reasoning = given if isinstance(given, str) else None
    elif (match := _LOOSE.search(answer)) is not None:
        label = match.group(1)
    if isinstance(label, list) and len(label) == 1:
        label = label[0]
    if isinstance(label, bool):
        return (1.0 if label else 0.0), reasoning
    if isinstance(label, str):
        word = label.strip().lower()
        if word in YES:
            return 1.0, reasoning
        if word in NO or word in {"almost", "partially_valid", "partially"}:
            return 0.0, reasoning
    return None, reasoning
