"""Running a node from a tool call (``tool_context.run_node``, ``NodeTool``).

A tool of a workflow's ``ToolNode`` runs the node as a dynamic node of that tool node
(``ctx.run_node``: recorded, resumable). A tool of an agent runs it on its own, with
the agent's invocation: the node's events (and those of the nodes inside it) are
stored in the session as they come, authored like a workflow's node events, under
the path ``<agent>@1/<node>@<run id>`` (the run id: the tool call's id); a tool that
streams progress also forwards each to the client as a progress event.

A node that waits for the client pauses a ``NodeTool``'s call (``pausable``): its
pause record is stored, and :class:`~pyadk.tools._paused_calls.ToolCallPaused` hands
its requests to the agent, which gives them to the client and waits (see
:mod:`pyadk.workflow._tool_pause` for the resume). Run by another tool
(``tool_context.run_node``), or in a live session, it raises
:class:`NodePausedInToolError`; its request is not stored (no one could answer it).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any, NoReturn

from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.workflow._base_node import START, BaseNode
from pyadk.workflow._dynamic_nodes import DynamicRuns
from pyadk.workflow._errors import (
    DynamicNodeFailError,
    NodeInterruptedError,
    WorkflowConfigurationError,
)
from pyadk.workflow._node_events import node_event
from pyadk.workflow._pause_state import WaitingNode

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.tools.tool_context import ToolContext
    from pyadk.workflow._context import Context
    from pyadk.workflow._tool_pause import ToolResume


class NodePausedInToolError(WorkflowConfigurationError):
    """A node run by ``tool_context.run_node`` from an agent's tool (not a
    ``NodeTool``), or by a tool of a live session, waited for the client (a
    ``RequestInput``, an approval, a credential): that call cannot pause. A
    ``NodeTool``'s call pauses the agent instead."""


async def run_node_from_tool(
    tool_context: ToolContext,
    node_like: Any,
    node_input: Any = None,
    *,
    run_id: str | None = None,
    use_sub_branch: bool = False,
    override_branch: str | None = None,
    pausable: bool = False,
) -> Any:
    """Runs ``node_like`` for ``tool_context``'s call and returns its output (see
    :meth:`pyadk.tools.ToolContext.run_node`). ``pausable``: a node that waits for
    the client pauses the call (ToolCallPaused), and goes on when the call runs again
    with the client's answer."""
    node_ctx: Context | None = getattr(tool_context, "_node_ctx", None)
    if node_ctx is not None:  # a ToolNode's tool: a dynamic node of that node
        return await node_ctx.run_node(
            node_like,
            node_input,
            run_id=run_id,
            use_sub_branch=use_sub_branch,
            override_branch=override_branch,
        )
    from pyadk.workflow._graph_parser import build_node
    from pyadk.workflow._node_run import NodeRun

    built = build_node(node_like)
    if built is START:
        raise WorkflowConfigurationError("tool_context.run_node cannot run START.")
    ic = tool_context._invocation_context
    run_id = _run_id(run_id or _default_run_id(tool_context, built.name), built.name)
    path = f"{ic.agent.name}@1/{built.name}@{run_id}"
    branch = _branch(ic.branch, built, run_id, use_sub_branch, override_branch)

    held: list[Event] = []

    async def emit(event: Event) -> None:
        if event.long_running_tool_ids:  # a request: the agent gives it to the client
            held.append(event)
            return
        await _store(tool_context, event)

    node_ic = ic.model_copy(update={"branch": branch})
    pausable = pausable and ic.live_request_queue is None
    resume = await _resume_of(tool_context, node_ic, built, path) if pausable else None
    if resume is not None and not resume.answered:  # waits for more answers
        await _pause(tool_context, node_ic, built.name, path, resume.waiting, [])
    if resume is not None and not resume.rerun:  # the answers are its output
        output = resume.output()
        await emit(
            node_event(
                node_ic,
                author=ic.agent.name,
                path=path,
                actions=EventActions(),
                output=output,
                with_output=True,
            )
        )
        return output
    run = NodeRun(
        node=built,
        ic=node_ic,
        author=ic.agent.name,
        path=path,
        run_id=run_id,
        node_input=resume.waiting.node_input if resume is not None else node_input,
        emit=emit,
        resuming=resume is not None,
        resume_inputs=resume.waiting.answers if resume is not None else None,
        dynamic=(
            DynamicRuns(emit, resume.waiting.dynamic)
            if resume is not None and resume.waiting.dynamic
            else None
        ),
    )
    message = f"Dynamic node {built.name} failed"
    try:
        result = await run.run()
    except DynamicNodeFailError as error:  # the node let its own dynamic node's failure out
        raise DynamicNodeFailError(
            message=message, error=error.error, error_node_path=error.error_node_path
        ) from error.error
    except NodeInterruptedError:  # pragma: no cover - NodeRun turns it into waiting
        result = None
    except Exception as error:
        raise DynamicNodeFailError(message=message, error=error, error_node_path=path) from error
    if (result is None or result.waiting or held) and pausable:
        carried = resume.carried() if resume is not None else None
        waiting = WaitingNode(
            run_id=1,
            branch=branch,
            node_input=node_input if resume is None else resume.waiting.node_input,
            interrupts=(result.interrupts if result is not None else set())
            | {i for e in held for i in e.long_running_tool_ids or ()}
            | (carried.interrupts if carried is not None else set()),
            requests={
                **(carried.requests if carried is not None else {}),
                **(result.requests if result is not None else {}),
            },
            answers=dict(carried.answers) if carried is not None else {},
            dynamic=result.dynamic if result is not None else {},
        )
        await _pause(tool_context, node_ic, built.name, path, waiting, held)
    if result is None or result.waiting or held:
        raise NodePausedInToolError(
            f"Node {built.name!r}, run by tool call {tool_context.function_call_id!r} of "
            f"agent {ic.agent.name!r}, waits for the client's answer (a RequestInput, an "
            "approval or a credential): a node run by tool_context.run_node (or by a "
            "tool of a live session) cannot pause the agent. Make the node the agent's "
            "NodeTool, a sub-agent or a node of a Workflow to let it pause and resume."
        )
    return result.output if result.has_output else None


async def _resume_of(
    tool_context: ToolContext, node_ic: InvocationContext, built: BaseNode, path: str
) -> ToolResume | None:
    """The paused run of this call's node that the client's message answers (None: a
    new run). An answer that does not fit its request is refused (InputAnswerError):
    the record is written again, the run still waits."""
    from pyadk.workflow._errors import InputAnswerError
    from pyadk.workflow._pause_state import pause_event, paused_runs
    from pyadk.workflow._tool_pause import find_tool_resume

    ic = tool_context._invocation_context
    try:
        return find_tool_resume(ic, author=ic.agent.name, path=path, node=built)
    except InputAnswerError:
        [(_, state), *_] = paused_runs(ic.session.events, author=ic.agent.name, path=path)
        await _store(
            tool_context, pause_event(node_ic, author=ic.agent.name, path=path, state=state)
        )
        raise


async def _pause(
    tool_context: ToolContext,
    node_ic: InvocationContext,
    name: str,
    path: str,
    waiting: WaitingNode,
    requests: list[Event],
) -> NoReturn:
    """Stores the pause record of the call's node and pauses the call."""
    from pyadk.tools._paused_calls import ToolCallPaused
    from pyadk.workflow._pause_state import pause_event
    from pyadk.workflow._tool_pause import tool_pause_state

    author = tool_context._invocation_context.agent.name
    state = tool_pause_state(name, waiting)
    await _store(tool_context, pause_event(node_ic, author=author, path=path, state=state))
    raise ToolCallPaused(requests)


async def _store(tool_context: ToolContext, event: Event) -> None:
    """Stores ``event`` in the session (after the plugins' ``on_event_callback``), and
    forwards it to the client when the tool streams progress."""
    from pyadk.tools.tool_progress import forward_agent_event

    ic = tool_context._invocation_context
    plugins = ic.plugin_manager
    if plugins is not None:
        replaced = await plugins.run("on_event_callback", invocation_context=ic, event=event)
        if isinstance(replaced, Event):
            event = replaced
    if not event.partial:
        await _append(ic, event)
    forward_agent_event(tool_context, event)


_append_locks: dict[int, asyncio.Lock] = {}
"""One lock per invocation (by the id of its shared counters, dropped with them): tool
calls running at once store their nodes' events one at a time."""
_STALE_RETRIES = 20


async def _append(ic: InvocationContext, event: Event) -> None:
    """Appends ``event`` to the invocation's session. Calls of one invocation take
    turns; an append that met one in flight elsewhere in the invocation (a parallel
    branch's event, which the Runner stores) is tried again once that one is stored."""
    from pyadk.sessions.errors import StaleSessionError

    key = id(ic._counters)
    lock = _append_locks.get(key)
    if lock is None:
        lock = _append_locks[key] = asyncio.Lock()
        weakref.finalize(ic._counters, _append_locks.pop, key, None)
    async with lock:
        for attempt in range(_STALE_RETRIES + 1):
            try:
                await ic.session_service.append_event(ic.session, event)
                return
            except StaleSessionError:  # nothing was written; the session is unchanged
                if attempt == _STALE_RETRIES:
                    raise
                await asyncio.sleep(0.01)


def _default_run_id(tool_context: ToolContext, name: str) -> str:
    """The call's id for the first run of ``name`` in the call, then ``<id>-2``, ..."""
    counts: dict[str, int] = tool_context.__dict__.setdefault("_node_runs", {})
    counts[name] = count = counts.get(name, 0) + 1
    base = tool_context.function_call_id or "1"
    return base if count == 1 else f"{base}-{count}"


def _run_id(run_id: str, name: str) -> str:
    if "/" in run_id or "@" in run_id:
        raise ValueError(f"run_id {run_id!r} for node {name!r} must not contain '/' or '@'.")
    return run_id


def _branch(
    base: str | None, built: BaseNode, run_id: str, use_sub_branch: bool, override: str | None
) -> str | None:
    """The caller's branch (or ``override``), or its sub-branch ``<name>@<run id>``
    (always for an agent or workflow)."""
    from pyadk.workflow._agent_node import AgentNode

    if override is not None:
        base = override or None
    if use_sub_branch or (override is None and isinstance(built, AgentNode)):
        label = f"{built.name}@{run_id}"
        return f"{base}.{label}" if base else label
    return base
