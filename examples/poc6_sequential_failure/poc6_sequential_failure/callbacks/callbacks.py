"""check_outcome_and_skip_callback: skips an agent unless the previous step succeeded."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pyadk import types
from pyadk.agents import CallbackContext

from ..prompt import AGENT_A_OUTCOME, AGENT_B_OUTCOME, AGENT_C_OUTCOME

logger = logging.getLogger(__name__)

# For each guarded agent: (the previous step's outcome key, its own outcome key).
GUARDS: dict[str, tuple[str, str]] = {
    "AgentB": (AGENT_A_OUTCOME, AGENT_B_OUTCOME),
    "AgentC": (AGENT_B_OUTCOME, AGENT_C_OUTCOME),
}

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def parse_outcome(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """(outcome dict, reason) for a stored outcome; None with the reason when unusable.

    Accepts a dict, a JSON string, or a JSON string wrapped in a markdown code fence,
    with text around the object.
    """
    if raw is None:
        return None, "no outcome recorded"
    if isinstance(raw, dict):
        return raw, "outcome is already a dict"
    if not isinstance(raw, str):
        return None, f"outcome has unexpected type {type(raw).__name__}"
    text = raw.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            return None, f"outcome is not JSON: {raw[:80]!r}"
        try:
            value = json.loads(text[start : end + 1])
        except json.JSONDecodeError as exc:
            return None, f"outcome is not valid JSON ({exc.msg}): {raw[:80]!r}"
    if not isinstance(value, dict):
        return None, f"outcome JSON is not an object: {raw[:80]!r}"
    return value, "parsed"


def check_outcome_and_skip_callback(callback_context: CallbackContext) -> types.Content | None:
    """Before-agent callback for B and C: run only if the previous step succeeded.

    When the previous outcome is missing, unparseable, or has a status other than
    "success", writes a "skipped" JSON outcome for this agent and returns Content, so
    the agent's model is never called. Returns None to let the agent run.
    """
    agent_name = callback_context.agent_name
    if agent_name not in GUARDS:
        logger.warning("No outcome guard configured for %s; letting it run.", agent_name)
        return None
    previous_key, own_key = GUARDS[agent_name]
    outcome, reason = parse_outcome(callback_context.state.get(previous_key))
    status = outcome.get("status") if outcome else None
    if status == "success":
        logger.info("%s runs: %s reports success.", agent_name, previous_key)
        return None
    if outcome is None:
        why = f"{previous_key} unusable ({reason})"
    elif status is None:
        why = f"{previous_key} has no 'status' key"
    else:
        why = f"{previous_key} status is {status!r}"
    logger.info("Skipping %s: %s.", agent_name, why)
    message = f"Skipped due to prior step outcome: {why}."
    callback_context.state[own_key] = json.dumps({"status": "skipped", "message": message})
    return types.Content(role="model", parts=[types.Part(text=f"{agent_name} skipped. {message}")])


def ensure_outcomes_recorded_callback(callback_context: CallbackContext) -> None:
    """Before-agent callback for D: records an "unknown" outcome for any step that left
    none (e.g. it crashed before answering), so D's ``{key}`` injection never fails.
    Returns None: D always runs."""
    for key in (AGENT_A_OUTCOME, AGENT_B_OUTCOME, AGENT_C_OUTCOME):
        if key not in callback_context.state:
            logger.warning("No %s recorded; Agent D will see status 'unknown'.", key)
            callback_context.state[key] = json.dumps(
                {"status": "unknown", "message": "No outcome was recorded for this step."}
            )
    return None
