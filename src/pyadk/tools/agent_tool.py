"""AgentTool: another agent, called like a function."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.llm_agent import LlmAgent
from pyadk.sessions.state import State
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.forwarding_artifact_service import ForwardingArtifactService
from pyadk.tools.function_declarations import schema_for_model

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyadk.events.event import Event
    from pyadk.tools.tool_context import ToolContext


class AgentTool(BaseTool):
    """Runs ``agent`` as a tool call and returns its final answer.

    The model passes ``request`` (text), or the fields of the agent's
    ``input_schema``. The agent runs in a fresh in-memory session seeded with a copy
    of the caller's state; its state changes flow back to the caller, and its
    artifacts are saved in the caller's session. With ``output_schema`` the result is
    the validated dict, otherwise the final text (its parts' text, code and code
    output, one per line). A workflow agent takes the ``input_schema`` of its first
    sub-agent and the ``output_schema`` of its last (as google-adk). An agent that
    ends with an error and no text (a model error) gives an error result with its
    message; one that stops waiting for the client (an approval, a credential) gives
    an error result too: its nested session is not kept, so it could not resume.

    ``stream_events=True`` (a pyadk addition) forwards each event of the agent, as it
    happens, to the caller's run as a progress event of this call (partial: never
    stored, never shown to the caller's model; see :mod:`pyadk.tools.tool_progress`):
    a client sees the agent's tool calls and text while it works. The caller's model
    still gets only the result.
    """

    def __init__(
        self, agent: BaseAgent, skip_summarization: bool = False, *, stream_events: bool = False
    ) -> None:
        self.stream_events = stream_events
        """Forward the agent's events to the caller's run as progress events."""
        super().__init__(name=agent.name, description=agent.description)
        self.agent = agent
        self.skip_summarization = skip_summarization

    @property
    def streams_progress(self) -> bool:
        """True with ``stream_events``: the calls run so that the events pass on."""
        return self.stream_events

    @streams_progress.setter
    def streams_progress(self, value: bool) -> None:
        self.stream_events = value

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        input_schema = _input_schema(self.agent)
        if input_schema is not None:
            parameters = schema_for_model(input_schema)
        else:
            parameters = types.Schema(
                type=types.Type.OBJECT,
                properties={"request": types.Schema(type=types.Type.STRING)},
                required=["request"],
            )
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters=parameters
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        from pyadk.runners import Runner
        from pyadk.sessions.in_memory_session_service import InMemorySessionService

        if self.skip_summarization:
            tool_context.actions.skip_summarization = True
        message = self._message(args)
        if isinstance(message, dict):
            return message
        parent = tool_context.invocation_context
        plugins = parent.plugin_manager.plugins if parent.plugin_manager else None
        runner = Runner(
            app_name=self.agent.name,
            agent=self.agent,
            session_service=InMemorySessionService(),
            artifact_service=ForwardingArtifactService(tool_context),
            memory_service=parent.memory_service,
            credential_service=parent.credential_service,
            plugins=plugins,
        )
        state = {
            k: v
            for k, v in tool_context.state.to_dict().items()
            if not k.startswith(State.TEMP_PREFIX)
        }
        session = await runner.session_service.create_session(
            app_name=self.agent.name, user_id=parent.user_id, state=state
        )
        last_content: types.Content | None = None
        last_error: str | None = None
        pending: set[str] = set()  # calls that wait for the client (approvals, credentials)
        forward: Callable[[ToolContext, Event], bool] | None = None
        if self.stream_events:
            from pyadk.tools.tool_progress import forward_agent_event

            forward = forward_agent_event
        async for event in runner.run_async(
            user_id=session.user_id,
            session_id=session.id,
            new_message=types.UserContent(message),
            run_config=parent.run_config,
        ):
            if forward is not None:
                forward(tool_context, event)
            if event.actions.state_delta:
                tool_context.state.update(event.actions.state_delta)
            if event.error_code or event.error_message:
                last_error = event.error_message or event.error_code
            if event.long_running_tool_ids:
                pending |= event.long_running_tool_ids
            if event.content is not None and not event.partial:
                last_content = event.content
                pending -= {r.id for r in event.get_function_responses() if r.id}
        if pending:
            tool_context.actions.skip_summarization = False
            return {
                "error": f"Agent {self.agent.name!r} stopped waiting for the client's answer "
                f"to {', '.join(sorted(pending))} (an approval, a credential or a "
                "long-running tool), which an agent tool cannot pass on: make the agent a "
                "sub-agent to let it pause and resume."
            }
        text = _final_text(last_content)
        if not text and last_error:
            return {"status": "error", "error": f"Agent {self.agent.name!r} failed: {last_error}"}
        output_schema = _output_schema(self.agent)
        if output_schema is None or not text:
            return text
        try:
            return output_schema.model_validate_json(text).model_dump(
                mode="json", exclude_none=True
            )
        except ValidationError as exc:
            return {"error": f"Agent {self.agent.name!r} returned invalid structured output: {exc}"}

    def _message(self, args: dict[str, Any]) -> str | dict[str, str]:
        """The message for the agent, or an error result for the caller's model."""
        input_schema = _input_schema(self.agent)
        if input_schema is not None:
            try:
                return input_schema.model_validate(args).model_dump_json(exclude_none=True)
            except ValidationError as exc:
                return {"error": f"Invalid arguments for agent {self.agent.name!r}: {exc}"}
        request = args.get("request")
        if not isinstance(request, str) or not request:
            return {"error": f"Agent tool {self.name!r} needs a non-empty 'request' string."}
        return request if isinstance(request, str) else json.dumps(request)


def _input_schema(agent: BaseAgent) -> type[BaseModel] | None:
    """The agent's ``input_schema``; a workflow agent's is its first sub-agent's."""
    if isinstance(agent, LlmAgent):
        return agent.input_schema
    return _input_schema(agent.sub_agents[0]) if agent.sub_agents else None


def _output_schema(agent: BaseAgent) -> type[BaseModel] | None:
    """The agent's ``output_schema``; a workflow agent's is its last sub-agent's."""
    if isinstance(agent, LlmAgent):
        return agent.output_schema
    return _output_schema(agent.sub_agents[-1]) if agent.sub_agents else None


def _final_text(content: types.Content | None) -> str:
    """What the caller's model gets of the agent's last content: each non-thought
    part's text, code or code output, one per line."""
    if content is None:
        return ""
    texts = (_part_text(part) for part in content.parts or () if not part.thought)
    return "\n".join(text for text in texts if text)


def _part_text(part: types.Part) -> str:
    if part.text:
        return part.text
    result = part.code_execution_result
    if result is not None and result.output:
        return result.output.rstrip("\n")
    code = part.executable_code
    return code.code if code is not None and code.code else ""
