"""A named collection of eval cases (an ``*.evalset.json`` file)."""

from __future__ import annotations

from pydantic import Field

from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.eval_case import EvalCase


class EvalSet(EvalBaseModel):
    """The eval cases of one ``*.evalset.json`` file."""

    eval_set_id: str
    name: str | None = None
    description: str | None = None
    eval_cases: list[EvalCase] = Field(default_factory=list)
    creation_timestamp: float = 0.0

    def select(self, eval_ids: list[str]) -> EvalSet:
        """The same set with only ``eval_ids`` (in the set's order); ValueError names the
        ids the set does not have."""
        if not eval_ids:
            return self
        known = {case.eval_id for case in self.eval_cases}
        missing = [eval_id for eval_id in eval_ids if eval_id not in known]
        if missing:
            raise ValueError(
                f"Eval set {self.eval_set_id!r} has no eval case {', '.join(missing)} "
                f"(it has: {', '.join(sorted(known)) or 'none'})."
            )
        wanted = set(eval_ids)
        cases = [case for case in self.eval_cases if case.eval_id in wanted]
        return self.model_copy(update={"eval_cases": cases})
