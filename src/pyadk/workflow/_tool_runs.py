"""Running a node from a tool call (``tool_context.run_node``, ``NodeTool``).

A tool of a workflow's ``ToolNode`` runs the node as a dynamic node of that tool node
(``ctx.run_node``: recorded, resumable). A tool of an agent runs it on its own, with
the agent's invocation: the node's events (and those of the nodes inside it) are
stored in the session as they come, authored like a workflow's node events, under
the path ``<agent>@1/<node>@<run id>`` (the run id: the tool call's id); a tool that
streams progress also forwards each to the client as a progress event. A node that
waits for the client raises :class:`NodePausedInToolError`; its request is not stored
(no one could answer it).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any

from pyadk.events.event import Event
from pyadk.workflow._base_node import START, BaseNode
from pyadk.workflow._errors import (
    DynamicNodeFailError,
    NodeInterruptedError,
    WorkflowConfigurationError,
)

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.tools.tool_context import ToolContext
    from pyadk.workflow._context import Context


class NodePausedInToolError(WorkflowConfigurationError):
    """A node run from an agent's tool call waited for the client (a ``RequestInput``,
    an approval, a credential): pyadk cannot pause an agent's tool call on it."""


async def run_node_from_tool(
    tool_context: ToolContext,
    node_like: Any,
    node_input: Any = None,
    *,
    run_id: str | None = None,
    use_sub_branch: bool = False,
    override_branch: str | None = None,
) -> Any:
    """Runs ``node_like`` for ``tool_context``'s call and returns its output (see
    :meth:`pyadk.tools.ToolContext.run_node`)."""
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
        if event.long_running_tool_ids:  # a request the client could never answer here
            held.append(event)
            return
        await _store(tool_context, event)

    run = NodeRun(
        node=built,
        ic=ic.model_copy(update={"branch": branch}),
        author=ic.agent.name,
        path=path,
        run_id=run_id,
        node_input=node_input,
        emit=emit,
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
    if result is None or result.waiting or held:
        raise NodePausedInToolError(
            f"Node {built.name!r}, run by tool call {tool_context.function_call_id!r} of "
            f"agent {ic.agent.name!r}, waits for the client's answer (a RequestInput, an "
            "approval or a credential): pyadk cannot pause an agent's tool call on a "
            "node's request. Make the workflow a sub-agent or a node of a Workflow to "
            "let it pause and resume."
        )
    return result.output if result.has_output else None


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
