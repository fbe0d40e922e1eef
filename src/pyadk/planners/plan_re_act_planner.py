"""PlanReActPlanner: plan, act and reason in tagged text, then give one final answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk import types
from pyadk.planners.base_planner import BasePlanner
from pyadk.utils.fast_models import construct

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.models.llm_request import LlmRequest

PLANNING_TAG = "/*PLANNING*/"
REPLANNING_TAG = "/*REPLANNING*/"
REASONING_TAG = "/*REASONING*/"
ACTION_TAG = "/*ACTION*/"
FINAL_ANSWER_TAG = "/*FINAL_ANSWER*/"

_PLANNING_TAGS = (PLANNING_TAG, REASONING_TAG, ACTION_TAG, REPLANNING_TAG)
"""The tags of the text that becomes thought parts (everything but the final answer)."""


class PlanReActPlanner(BasePlanner):
    """Asks the model to write a plan, then act (call tools) with reasoning in between,
    then one final answer, each under its tag; works with any model (no thinking
    feature needed).

    In each response, the text before ``/*FINAL_ANSWER*/`` and text parts that start
    with a planning, replanning, reasoning or action tag become thought parts (tags
    removed); the final answer stays plain text. Once the response calls a function,
    only the calls that directly follow the first one are kept: anything after them is
    dropped, and so are calls without a name.
    """

    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str:
        """The Plan-ReAct system instruction."""
        return _INSTRUCTION

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        """Marks the reasoning as thought parts and cuts the response after its first
        group of function calls (see the class docstring); None for no parts."""
        if not response_parts:
            return None
        kept: list[types.Part] = []
        for index, part in enumerate(response_parts):
            call = part.function_call
            if call is None:
                kept.extend(_split_reasoning(part))
                continue
            if not call.name:
                continue  # a call without a name cannot run
            for following in response_parts[index:]:
                if following.function_call is None:
                    break
                kept.append(following)
            break
        return kept


def _split_reasoning(part: types.Part) -> list[types.Part]:
    """``part`` as thought and answer parts: the text before the last final-answer tag
    is a thought, the text after it the answer; a text starting with a planning tag is
    all thought. Other parts are kept as they are."""
    text = part.text
    if not text:
        return [part]
    end = text.rfind(FINAL_ANSWER_TAG)
    if end >= 0:
        reasoning = _strip_tags(text[:end])
        answer = text[end + len(FINAL_ANSWER_TAG) :]
        parts = []
        if reasoning:
            parts.append(construct(types.Part, text=reasoning, thought=True))
        if answer:
            parts.append(construct(types.Part, text=answer))
        return parts
    if text.startswith(_PLANNING_TAGS):
        return [part.model_copy(update={"text": _strip_tags(text), "thought": True})]
    return [part]


def _strip_tags(text: str) -> str:
    for tag in _PLANNING_TAGS:
        text = text.replace(tag, "")
    return text


_INSTRUCTION = f"""\
Answer the user's request by gathering facts with the tools available to you rather \
than relying on what you remember.

Work in three phases:
1. Plan: write down how you will answer, in plain language.
2. Act: carry out the plan by calling tools. Between tool calls, reason about what \
the results tell you, where you are in the plan and what to do next.
3. Answer: finish with exactly one final answer.

Tag every piece of your response:
- the plan goes under {PLANNING_TAG};
- a revised plan goes under {REPLANNING_TAG};
- your reasoning between tool calls goes under {REASONING_TAG};
- the tool calls you make go under {ACTION_TAG};
- the final answer goes under {FINAL_ANSWER_TAG}.

The plan:
- is a numbered list of steps which, followed in order, answers the request in full;
- names in each step the tool or tools it uses, and only tools you actually have, so \
that reading a step tells which action to take;
- is revised when a step fails or returns something unexpected: learn from the \
results so far, write the new plan under {REPLANNING_TAG} and continue with it.

The reasoning sums up what is known so far from the request and the tool results, \
and says what the next step is, so that each step brings you closer to the answer.

The final answer is precise and follows any format the request asks for. If the \
request cannot be answered with your tools and the information available, say why \
and ask the user for what is missing.

Tool calls:
- use only the tools described to you, and only the parameters they declare;
- keep each call directly relevant to the request and to your current step;
- never invent tools, libraries or code of your own.

Above all: ask for clarification when you need more information to answer, and \
prefer information already in the conversation over calling a tool again.\
"""
