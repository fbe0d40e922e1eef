"""Rubrics: yes/no properties a judge model checks an agent's answer against."""

from __future__ import annotations

from pyadk.evaluation.common import EvalBaseModel


class RubricContent(EvalBaseModel):
    """What a rubric checks, as a sentence the judge answers yes or no to."""

    text_property: str | None = None
    """E.g. ``"The answer names the city the user asked about."``"""


class Rubric(EvalBaseModel):
    """One property to check, with an id its scores are reported under."""

    rubric_id: str
    rubric_content: RubricContent
    description: str | None = None
    """How to read the rubric's results (for people; not sent to the judge)."""
    type: str | None = None
    """Which metric an eval case's rubric is for: ``FINAL_RESPONSE_QUALITY`` or
    ``TOOL_USE_QUALITY`` (rubrics in a metric's criterion need no type)."""


class RubricScore(EvalBaseModel):
    """The judge's verdict on one rubric: 1.0 (yes), 0.0 (no) or None (no verdict)."""

    rubric_id: str
    rationale: str | None = None
    score: float | None = None
