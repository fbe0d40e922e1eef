"""``rubric_based_tool_use_quality_v1``: a judge checks the agent's tool calls (which
tools, in what order, with what arguments) against rubrics."""

from __future__ import annotations

from string import Template
from typing import ClassVar

from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_metrics import RubricsBasedCriterion
from pyadk.evaluation.llm_as_judge_utils import (
    get_text_from_content,
    get_tool_calls_and_responses_as_json_str,
    get_tool_declarations_as_json_str,
)
from pyadk.evaluation.rubric_based_evaluator import ANSWER_FORMAT, RubricBasedEvaluator

TOOL_USE_QUALITY_PROMPT = Template(f"""\
You check how an AI agent used its tools to serve a user's request, against the \
properties listed at the end. Look at the tool calls it made, their order, their \
arguments and the results they returned.

Verdicts:
- yes: the agent's tool use has the property, or the property does not apply (for \
example it is about the arguments of a call that was rightly not made);
- no: the property applies and the agent's tool use does not have it.

Decide each property exactly: a call to a differently named tool is not a call to \
the tool named; an argument must carry the value (or an equivalent one) the property \
asks for.

Judge every property listed and no other.

{ANSWER_FORMAT}

Write plain text, not JSON.

<available_tools>
$tool_declarations
</available_tools>

<user_prompt>
$user_input
</user_prompt>

<tool_calls_and_results>
$tool_usage
</tool_calls_and_results>

<properties>
$rubrics
</properties>
""")


class RubricBasedToolUseV1Evaluator(RubricBasedEvaluator):
    """Scores tool use by rubrics (eval cases contribute their rubrics of type
    ``TOOL_USE_QUALITY``): 1 per rubric met, the mean over rubrics."""

    criterion_type: ClassVar[type[RubricsBasedCriterion]] = RubricsBasedCriterion
    RUBRIC_TYPE: ClassVar[str] = "TOOL_USE_QUALITY"

    def format_auto_rater_prompt(self, actual: Invocation, expected: Invocation | None) -> str:
        """The prompt; ValueError when the invocation has no rubrics."""
        self.create_effective_rubrics_list(actual.rubrics)
        return TOOL_USE_QUALITY_PROMPT.substitute(
            tool_declarations=get_tool_declarations_as_json_str(actual),
            user_input=get_text_from_content(actual.user_content) or "",
            tool_usage=get_tool_calls_and_responses_as_json_str(actual),
            rubrics=self.rubrics_text(),
        )
