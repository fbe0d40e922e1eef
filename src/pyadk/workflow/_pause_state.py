"""The record a paused graph run leaves in the session, and reading it back.

When nodes of a run wait for the client (an approval, a credential, a long-running
call), the run ends once nothing else can run, and writes one *pause event* (author:
the workflow; ``custom_metadata["workflow_paused"]``) holding what its resume needs:
the waiting nodes (run id, branch, input, the ids of the calls they wait on), the
outputs later nodes may still read (joins' predecessors, terminal nodes), the joins'
arrivals, queued triggers, branches and run counters. A later invocation whose
message answers one of those calls resumes the run from it.

A record never holds an answer to a credential request (``wf_auth:`` ids): the nodes
read those from the user's message, and one carried over in error is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.events.event import Event
from pyadk.workflow._dynamic_state import DynamicRecord
from pyadk.workflow._node_events import NODE_INFO, node_path
from pyadk.workflow._request_input import answer_value
from pyadk.workflow._tool_node_auth import AUTH_PREFIX

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

PAUSED = "workflow_paused"
_CONTENT = "$content"


@dataclass
class WaitingNode:
    """A node whose run ended waiting for the client."""

    run_id: int
    branch: str | None
    node_input: Any
    interrupts: set[str] = field(default_factory=set)
    """The ids of the calls it waits on (their answers resume it)."""
    requests: dict[str, Any] = field(default_factory=dict)
    """Of those, its ``RequestInput`` ids, each with its answer's JSON schema."""
    answers: dict[str, Any] = field(default_factory=dict)
    """Answers to its requests given so far (it waits for the others)."""
    dynamic: dict[str, DynamicRecord] = field(default_factory=dict)
    """The dynamic nodes it ran (``ctx.run_node``), by path: finished or waiting."""

    def with_answers(self, responses: dict[str, Any]) -> WaitingNode:
        """This node once the client's ``responses`` (by call id) came: its input
        requests' answers read against their schemas, the answered calls done."""
        answers = dict(self.answers)
        for request_id, schema in self.requests.items():
            if request_id in responses:
                answers[request_id] = answer_value(responses[request_id], schema)
        return WaitingNode(
            run_id=self.run_id,
            branch=self.branch,
            node_input=self.node_input,
            interrupts={i for i in self.interrupts if i not in responses},
            requests=dict(self.requests),
            answers=answers,
            dynamic={p: r.with_answers(responses) for p, r in self.dynamic.items()},
        )


@dataclass
class PauseState:
    """What a paused run needs to go on (see the module docstring)."""

    waiting: dict[str, WaitingNode] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    branches: dict[str, str | None] = field(default_factory=dict)
    arrivals: dict[str, set[str]] = field(default_factory=dict)
    queued: dict[str, list[tuple[Any, str | None]]] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "waiting": {
                name: {
                    "run_id": w.run_id,
                    "branch": w.branch,
                    "input": encode(w.node_input),
                    "interrupts": sorted(w.interrupts),
                    "requests": w.requests,
                    "answers": _no_credentials(w.answers),
                    **(
                        {"dynamic": {p: _dynamic_json(r) for p, r in w.dynamic.items()}}
                        if w.dynamic
                        else {}
                    ),
                }
                for name, w in self.waiting.items()
            },
            "outputs": {name: encode(value) for name, value in self.outputs.items()},
            "branches": dict(self.branches),
            "arrivals": {name: sorted(sources) for name, sources in self.arrivals.items()},
            "queued": {
                name: [{"input": encode(value), "branch": branch} for value, branch in items]
                for name, items in self.queued.items()
            },
            "runs": dict(self.runs),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PauseState:
        return cls(
            waiting={
                name: WaitingNode(
                    run_id=int(w["run_id"]),
                    branch=w.get("branch"),
                    node_input=decode(w.get("input")),
                    interrupts=set(w.get("interrupts") or ()),
                    requests=dict(w.get("requests") or {}),
                    answers=dict(w.get("answers") or {}),
                    dynamic={
                        p: DynamicRecord.from_json(r) for p, r in (w.get("dynamic") or {}).items()
                    },
                )
                for name, w in (data.get("waiting") or {}).items()
            },
            outputs={k: decode(v) for k, v in (data.get("outputs") or {}).items()},
            branches=dict(data.get("branches") or {}),
            arrivals={k: set(v) for k, v in (data.get("arrivals") or {}).items()},
            queued={
                name: [(decode(item.get("input")), item.get("branch")) for item in items]
                for name, items in (data.get("queued") or {}).items()
            },
            runs={k: int(v) for k, v in (data.get("runs") or {}).items()},
        )


def _no_credentials(answers: dict[str, Any]) -> dict[str, Any]:
    """``answers`` less those to credential requests (never stored)."""
    return {i: v for i, v in answers.items() if not i.startswith(AUTH_PREFIX)}


def _dynamic_json(record: DynamicRecord) -> dict[str, Any]:
    data = record.to_json()
    if "answers" in data:
        data["answers"] = _no_credentials(data["answers"])
    return data


def encode(value: Any) -> Any:
    """``value`` as stored: a message becomes a tagged dict, the rest stays as is."""
    if isinstance(value, types.Content):
        return {_CONTENT: value.model_dump(mode="json", by_alias=True, exclude_none=True)}
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The value :func:`encode` stored."""
    if isinstance(value, dict):
        if len(value) == 1 and _CONTENT in value:
            return types.Content.model_validate(value[_CONTENT])
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def pause_event(ic: InvocationContext, *, author: str, path: str, state: PauseState) -> Event:
    """The event recording that the run at ``path`` paused in ``state``."""
    return Event(
        invocation_id=ic.invocation_id,
        author=author,
        branch=ic.branch,
        custom_metadata={NODE_INFO: {"path": path}, PAUSED: state.to_json()},
    )


def paused_runs(events: list[Event], *, author: str, path: str) -> list[tuple[int, PauseState]]:
    """The pause records of the run at ``path`` of workflow ``author``, latest first,
    each with the index of its event in ``events``."""
    found = []
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        metadata = event.custom_metadata
        if (
            metadata is not None
            and PAUSED in metadata
            and event.author == author
            and node_path(event) == path
        ):
            found.append((index, PauseState.from_json(metadata[PAUSED])))
    return found


def answers_in(message: types.Content | None) -> dict[str, Any]:
    """The function responses of ``message`` by call id."""
    if message is None or not message.parts:
        return {}
    return {
        part.function_response.id: part.function_response.response
        for part in message.parts
        if part.function_response is not None and part.function_response.id
    }
