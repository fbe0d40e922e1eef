"""The pause record of a node run by an agent's tool call (a ``NodeTool``), and its
resume when the client answers.

When the node waits for the client, the call writes a pause record (the workflow's
format, authored by the calling agent, at the node's path): the node's input, the
calls it waits on, its input requests and answers, and the dynamic nodes it ran. The
agent runs the call again once the client answers one of them: the node then goes on
as a waiting node of a graph does (it runs again with the answers, or the answers are
its output), and the nodes that had finished are not run again (a workflow reads its
own pause record).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyadk.workflow._pause_state import PauseState, WaitingNode, answers_in, paused_runs

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.workflow._base_node import BaseNode


@dataclass
class ToolResume:
    """How a paused node run of a tool call goes on."""

    waiting: WaitingNode
    """The node's record, the client's answers taken in."""
    rerun: bool
    """The node runs again (else: its answers are its output, once all came)."""
    answered: bool
    """The node goes on (else it still waits: for more answers, or the message
    answered nothing new)."""

    def output(self) -> Any:
        """The output of a node whose answers are its output."""
        values = list(self.waiting.answers.values())
        return values[0] if len(values) == 1 else dict(self.waiting.answers)

    def carried(self) -> WaitingNode:
        """What the node still waits for, should its run end waiting again."""
        w = self.waiting
        return WaitingNode(
            run_id=w.run_id,
            branch=w.branch,
            node_input=w.node_input,
            interrupts=set(w.interrupts),
            requests={i: s for i, s in w.requests.items() if i not in w.answers},
            answers=dict(w.answers),
        )


def find_tool_resume(
    ic: InvocationContext, *, author: str, path: str, node: BaseNode
) -> ToolResume | None:
    """The paused run at ``path`` (of agent ``author``'s call) to go on with, the
    client's answers read against its requests (InputAnswerError for one that does not
    fit); None when the call never paused. A paused run whose calls the message does
    not answer (an answer sent again) stays waiting."""
    records = paused_runs(ic.session.events, author=author, path=path)
    if not records:
        return None
    _, state = records[0]
    if len(state.waiting) != 1:
        return None
    [waiting] = state.waiting.values()
    answers = answers_in(ic.user_content)
    fresh = {i: v for i, v in answers.items() if i in waiting.interrupts}
    if not fresh:
        return ToolResume(waiting, rerun=False, answered=False)  # nothing new: still waits
    taken = waiting.with_answers(fresh)
    rerun = _reruns(node, waiting)
    answered = rerun or all(i in taken.answers for i in taken.requests)
    return ToolResume(taken, rerun=rerun, answered=answered)


def _reruns(node: BaseNode, waiting: WaitingNode) -> bool:
    from pyadk.workflow._agent_node import AgentNode

    return (
        isinstance(node, AgentNode)
        or node.rerun_on_resume
        or any(r.waiting for r in waiting.dynamic.values())
    )


def tool_pause_state(name: str, waiting: WaitingNode) -> PauseState:
    """The pause record's state: the one waiting node."""
    return PauseState(waiting={name: waiting})
