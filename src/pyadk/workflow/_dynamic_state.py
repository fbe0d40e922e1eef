"""What a paused run keeps of the dynamic nodes (``ctx.run_node``) of a waiting node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class DynamicRecord:
    """One dynamic node run, by path: its output once it finished, or what it waits for.

    A finished run is not run again when its caller reruns on resume: ``ctx.run_node``
    returns the recorded output. A waiting run goes on once the client answers one of
    its ``interrupts``: it runs again (``rerun``: an agent, a node with
    ``rerun_on_resume``, a node waiting on its own dynamic nodes) or outputs the
    answers to its ``RequestInput`` s.
    """

    output: Any = None
    has_output: bool = False
    waiting: bool = False
    rerun: bool = False
    interrupts: set[str] = field(default_factory=set)
    """The ids of the calls it still waits on."""
    requests: dict[str, Any] = field(default_factory=dict)
    """Its ``RequestInput`` ids, each with its answer's JSON schema."""
    answers: dict[str, Any] = field(default_factory=dict)
    """Answers to its requests given so far."""
    answered: bool = False
    """An answer to one of its calls came in this invocation (not stored)."""

    def with_answers(self, responses: dict[str, Any]) -> DynamicRecord:
        """This record once the client's ``responses`` (by call id) came."""
        from pyadk.workflow._request_input import answer_value

        if not self.waiting or not self.interrupts & responses.keys():
            return self
        answers = dict(self.answers)
        for request_id, schema in self.requests.items():
            if request_id in responses:
                answers[request_id] = answer_value(responses[request_id], schema)
        return DynamicRecord(
            waiting=True,
            rerun=self.rerun,
            interrupts={i for i in self.interrupts if i not in responses},
            requests=dict(self.requests),
            answers=answers,
            answered=True,
        )

    def to_json(self) -> dict[str, Any]:
        from pyadk.workflow._pause_state import encode

        if not self.waiting:
            return {"output": encode(self.output), "has_output": self.has_output}
        return {
            "waiting": True,
            "rerun": self.rerun,
            "interrupts": sorted(self.interrupts),
            "requests": self.requests,
            "answers": self.answers,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DynamicRecord:
        from pyadk.workflow._pause_state import decode

        if not data.get("waiting"):
            return cls(output=decode(data.get("output")), has_output=bool(data.get("has_output")))
        return cls(
            waiting=True,
            rerun=bool(data.get("rerun")),
            interrupts=set(data.get("interrupts") or ()),
            requests=dict(data.get("requests") or {}),
            answers=dict(data.get("answers") or {}),
        )
