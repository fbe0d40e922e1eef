"""What judge prompts are made of (texts, tool calls as JSON) and how verdicts fold
into scores and statuses."""

from __future__ import annotations

import json
import statistics
from typing import Any

from pyadk import types
from pyadk.evaluation.eval_case import IntermediateData, Invocation, InvocationEvents
from pyadk.evaluation.eval_metrics import EvalStatus
from pyadk.evaluation.eval_rubrics import RubricScore


def get_text_from_content(
    content: types.Content | Invocation | None,
    *,
    include_intermediate_responses_in_final: bool = False,
) -> str | None:
    """The text of a Content (thoughts left out), or of an invocation's final response;
    with ``include_intermediate_responses_in_final``, the text said on the way first."""
    if isinstance(content, Invocation):
        texts = intermediate_texts(content) if include_intermediate_responses_in_final else []
        final = get_text_from_content(content.final_response)
        texts += [final] if final else []
        return "\n".join(texts) or None
    if content is None or not content.parts:
        return None
    texts = [part.text for part in content.parts if part.text and not part.thought]
    return "\n".join(texts) or None


def intermediate_texts(invocation: Invocation) -> list[str]:
    """The text an invocation said before its final response, in order."""
    data = invocation.intermediate_data
    contents: list[types.Content | None] = []
    if isinstance(data, IntermediateData):
        contents = [types.Content(parts=parts) for _, parts in data.intermediate_responses]
    elif isinstance(data, InvocationEvents):
        contents = [event.content for event in data.invocation_events]
    return [text for c in contents if (text := get_text_from_content(c))]


def get_eval_status(score: float | None, threshold: float) -> EvalStatus:
    """NOT_EVALUATED without a score, else PASSED when it reaches ``threshold``."""
    if score is None:
        return EvalStatus.NOT_EVALUATED
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


def get_average_rubric_score(rubric_scores: list[RubricScore]) -> float | None:
    """The mean of the rubric scores that have a value (None when none has)."""
    scores = [s.score for s in rubric_scores if s.score is not None]
    return statistics.fmean(scores) if scores else None


def tool_calls_with_responses(
    invocation: Invocation,
) -> list[tuple[types.FunctionCall, types.FunctionResponse | None]]:
    """Each tool call of the invocation with its result (matched by id), in order."""
    data = invocation.intermediate_data
    calls: list[types.FunctionCall] = []
    responses: list[types.FunctionResponse] = []
    if isinstance(data, IntermediateData):
        calls, responses = list(data.tool_uses), list(data.tool_responses)
    elif isinstance(data, InvocationEvents):
        for event in data.invocation_events:
            for part in (event.content.parts if event.content else None) or ():
                if part.function_call is not None:
                    calls.append(part.function_call)
                if part.function_response is not None:
                    responses.append(part.function_response)
    by_id = {r.id: r for r in responses if r.id}
    unmatched = [r for r in responses if not r.id]
    paired = []
    for call in calls:
        response = by_id.get(call.id) if call.id else None
        if response is None and unmatched and unmatched[0].name == call.name:
            response = unmatched.pop(0)
        paired.append((call, response))
    return paired


def get_tool_calls_and_responses_as_json_str(invocation: Invocation) -> str:
    """The invocation's tool calls and results as numbered JSON steps for a judge."""
    steps = [
        {
            "step": index,
            "tool_call": {"name": call.name, "args": call.args or {}},
            "tool_response": response.response if response is not None else None,
        }
        for index, (call, response) in enumerate(tool_calls_with_responses(invocation))
    ]
    if not steps:
        return "No tools were called."
    return json.dumps(steps, indent=2, ensure_ascii=False, default=repr)


def developer_instructions(invocation: Invocation) -> str:
    """The agents' instructions recorded in the invocation's ``app_details``, one
    ``name:`` block per agent; '' when there are none."""
    agents = _agent_details(invocation)
    blocks = [
        f"{name}:\n{details['instructions']}"
        for name, details in agents.items()
        if isinstance(details, dict) and details.get("instructions")
    ]
    return "\n\n".join(blocks)


def get_tool_declarations_as_json_str(invocation: Invocation) -> str:
    """The tool declarations recorded in ``app_details``, by agent, as JSON."""
    agents = _agent_details(invocation)
    declarations = {
        name: details.get("tool_declarations") or details.get("toolDeclarations") or []
        for name, details in agents.items()
        if isinstance(details, dict)
    }
    if not any(declarations.values()):
        return "No tool declarations were recorded."
    return json.dumps({"tool_declarations": declarations}, indent=2, default=repr)


def _agent_details(invocation: Invocation) -> dict[str, Any]:
    app = invocation.app_details or {}
    agents = app.get("agent_details") or app.get("agentDetails") or {}
    return agents if isinstance(agents, dict) else {}
