"""AgentNode: an agent (LlmAgent, a workflow agent, a nested Workflow) as a node."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.pause import waiting_under
from pyadk.events.event import Event
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._node_events import NODE_INFO
from pyadk.workflow._node_run import NodeWaiting, SetOutput

if TYPE_CHECKING:
    from pyadk.workflow._context import Context


class AgentNode(BaseNode):
    """Runs ``agent`` as a node; built for you when an agent appears in ``edges``.

    The node input is given to the agent as a user message (text; other values
    as JSON) written to the session in the node's branch, unless it is the
    user's message itself. An ``LlmAgent`` runs single-turn, as in google-adk:
    it sees only that input, not the rest of the conversation, unless its
    ``include_contents="default"`` is set explicitly. The node's output is the
    agent's final answer text (a dict with an ``output_schema``); a nested
    :class:`Workflow` receives the input as its own input and outputs its
    terminal node's output.
    """

    agent: BaseAgent
    name: str = ""

    def __init__(self, **data: Any) -> None:
        agent = data.get("agent")
        if isinstance(agent, BaseAgent):
            data.setdefault("name", agent.name)
        super().__init__(**data)

    def _agent_to_run(self) -> BaseAgent:
        """The agent to run now: a single-turn copy of an LlmAgent (made per run, so
        later changes to the agent are seen)."""
        agent = self.agent
        if isinstance(agent, LlmAgent) and "include_contents" not in agent.model_fields_set:
            return agent.model_copy(update={"include_contents": "none"})
        return agent

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        from pyadk.workflow._workflow import Workflow, nested_run

        ic = ctx._invocation_context
        agent = self._agent_to_run()
        if isinstance(agent, Workflow):
            with nested_run(agent, node_input, ctx.node_path) as run:
                async with aclosing(agent.run_async(ic)) as events:
                    async for event in events:
                        yield event
            if waiting_under(ic, agent):
                yield NodeWaiting()
            elif run.has_output:
                yield SetOutput(run.output)
            return
        if node_input is not None and node_input is not ic.user_content and not ctx.resuming:
            yield _input_event(ctx, node_input)
        answer: Event | None = None
        async with aclosing(agent.run_async(ic)) as events:
            async for event in events:
                if _is_answer(event):
                    answer = event
                yield event
        if waiting_under(ic, agent):  # paused: resumed when the client answers
            yield NodeWaiting()
        elif answer is not None:
            yield SetOutput(_answer_output(agent, answer))


def _input_event(ctx: Context, node_input: Any) -> Event:
    ic = ctx._invocation_context
    return Event(
        invocation_id=ic.invocation_id,
        author="user",
        branch=ic.branch,
        content=to_user_content(node_input),
        custom_metadata={NODE_INFO: {"path": ctx.node_path}},
    )


def to_user_content(value: Any) -> types.Content:
    """``value`` as a user message: Content as is, text, or JSON text."""
    if isinstance(value, types.Content):
        return types.Content(role="user", parts=list(value.parts or []))
    if isinstance(value, str):
        text = value
    elif isinstance(value, BaseModel):
        text = value.model_dump_json()
    else:
        text = json.dumps(value, default=str, ensure_ascii=False)
    return types.Content(role="user", parts=[types.Part(text=text)])


def _is_answer(event: Event) -> bool:
    content = event.content
    if event.partial or content is None or event.author == "user" or not content.parts:
        return False
    return event.is_final_response() and any(p.text for p in content.parts if not p.thought)


def _answer_output(agent: BaseAgent, event: Event) -> Any:
    assert event.content is not None
    text = "".join(p.text for p in event.content.parts or [] if p.text and not p.thought)
    schema = agent.output_schema if isinstance(agent, LlmAgent) else None
    if schema is None or not text.strip():
        return text
    try:
        return schema.model_validate_json(_strip_fence(text)).model_dump(
            mode="json", exclude_none=True
        )
    except ValueError:
        return text


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped
