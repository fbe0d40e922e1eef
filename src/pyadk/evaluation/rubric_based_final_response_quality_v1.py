"""``rubric_based_final_response_quality_v1``: a judge checks the final response
against rubrics, using the tool results as the only evidence for its facts."""

from __future__ import annotations

from string import Template
from typing import ClassVar

from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_metrics import RubricsBasedCriterion
from pyadk.evaluation.llm_as_judge_utils import (
    developer_instructions,
    get_text_from_content,
    get_tool_calls_and_responses_as_json_str,
    get_tool_declarations_as_json_str,
)
from pyadk.evaluation.rubric_based_evaluator import ANSWER_FORMAT, RubricBasedEvaluator

FINAL_RESPONSE_QUALITY_PROMPT = Template(f"""\
You check whether the final answer an AI agent gave a user has each of the properties \
listed at the end.

Verdicts:
- yes: the final answer has the property, or the property does not apply to it (its \
condition is not met);
- no: the property applies and the final answer does not have it, or the answer makes \
a claim the property is about that the evidence does not confirm.

Evidence is what the user wrote, the developer instructions, and the results of tool \
calls the agent made correctly (a fitting tool, sensible arguments). The final answer \
itself, and the agent's own summaries of results, are not evidence. When a property \
needs a fact the agent should have obtained with a tool and did not, or obtained with \
a wrong call, the verdict is no. Accept other wording and numerically equivalent \
values.

Judge every property listed and no other.

{ANSWER_FORMAT}

Write plain text, not JSON.

<developer_instructions>
$developer_instructions
</developer_instructions>

<available_tools>
$tool_declarations
</available_tools>

<user_prompt>
$user_input
</user_prompt>

<tool_calls_and_results>
$response_steps
</tool_calls_and_results>

<final_answer>
$final_response
</final_answer>

<properties>
$rubrics
</properties>
""")


class RubricBasedFinalResponseQualityV1Evaluator(RubricBasedEvaluator):
    """Scores the final response by rubrics (eval cases contribute their rubrics of
    type ``FINAL_RESPONSE_QUALITY``): 1 per rubric met, the mean over rubrics."""

    criterion_type: ClassVar[type[RubricsBasedCriterion]] = RubricsBasedCriterion
    RUBRIC_TYPE: ClassVar[str] = "FINAL_RESPONSE_QUALITY"

    def format_auto_rater_prompt(self, actual: Invocation, expected: Invocation | None) -> str:
        """The prompt; ValueError when the invocation has no rubrics."""
        self.create_effective_rubrics_list(actual.rubrics)
        return FINAL_RESPONSE_QUALITY_PROMPT.substitute(
            developer_instructions=developer_instructions(actual) or "(none recorded)",
            tool_declarations=get_tool_declarations_as_json_str(actual),
            user_input=get_text_from_content(actual.user_content) or "",
            response_steps=get_tool_calls_and_responses_as_json_str(actual),
            final_response=self.final_response_text(actual),
            rubrics=self.rubrics_text(),
        )
