"""The UI event protocol (version 1): typed events a chat UI renders without guessing.

An agent run produces ADK :class:`~pyadk.events.Event` objects whose meaning for a
frontend is implicit (partial or not, final or not, internal or not). The UI protocol
turns them into a small set of typed events; ``docs/ui-events.md`` is the reference.

Every event carries ``v`` (protocol version), ``type``, ``id`` (``<runId>:<seq>``, also
the SSE ``id:`` field), ``seq`` (1, 2, ... within a run), ``runId``, ``agent``,
``invocationId``, ``eventId`` (the ADK event it came from, if any), ``timestamp``
(seconds since the epoch) and ``internal``. ``internal: true`` marks what a chat
transcript must not show (it belongs to a thinking/progress panel).

JSON keys are camelCase, like the rest of the API; Python attributes are snake_case.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

from pyadk.server.json_safe import model_json

PROTOCOL_VERSION = 1
"""Incremented on any incompatible change; additive changes keep the version."""

ThinkingKind = Literal[
    "thought",  # the model's own reasoning text (thought parts)
    "handoff",  # a transfer_to_agent call: "Handing off to <agent>"
    "handoff_text",  # an announcement like "Transferring you to ..." kept out of the chat
    "state",  # a state change (data: the delta)
    "artifact",  # artifacts saved (data: filename -> version)
    "outcome",  # how an agent run ended (data: the AgentOutcome)
    "escalate",  # the agent escalated (ends an enclosing LoopAgent)
    "code",  # code the model asked to execute, or its result
    "node_input",  # a graph workflow's agent node got its input as a user message
]


class _UiBase(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    v: int = PROTOCOL_VERSION
    type: str
    id: str
    seq: int
    run_id: str
    agent: str | None = None
    invocation_id: str | None = None
    event_id: str | None = None
    timestamp: float
    internal: bool

    def to_json_dict(self) -> dict[str, Any]:
        """The event as camelCase JSON data (None fields included, for a stable shape); a
        tool result JSON cannot hold is given as its ``repr``."""
        return model_json(self, exclude_none=False)


class ThinkingEvent(_UiBase):
    """A thinking-panel entry: handoffs, thoughts, state changes, outcomes..."""

    type: Literal["thinking"] = "thinking"
    internal: Literal[True] = True
    kind: ThinkingKind
    text: str
    data: dict[str, Any] | None = None
    message_id: str | None = None
    """Set on streamed thoughts: deltas of one thought share it."""


class AgentActiveEvent(_UiBase):
    """``agent`` is now working: the run started, or control moved to it."""

    type: Literal["agent_active"] = "agent_active"
    internal: Literal[True] = True
    previous_agent: str | None = None
    reason: Literal["start", "transfer", "switch"]
    """start: first agent of the run; transfer: a transfer_to_agent handoff;
    switch: a workflow agent (sequential, parallel, loop) moved to another sub-agent."""
    description: str | None = None
    """The agent's ``description``, for "<description> analyzing request..." labels."""


class ToolStartEvent(_UiBase):
    """The agent called a tool (never emitted for transfer_to_agent: see ``handoff``)."""

    type: Literal["tool_start"] = "tool_start"
    internal: Literal[True] = True
    call_id: str | None
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    long_running: bool = False


class ToolEndEvent(_UiBase):
    """A tool returned; ``callId`` matches its ``tool_start``. A call waiting for
    approval or a credential gets its ``tool_end`` only once answered (see
    ``approval_required``, ``auth_required``)."""

    type: Literal["tool_end"] = "tool_end"
    internal: Literal[True] = True
    call_id: str | None
    tool: str
    result: Any = None
    is_error: bool = False
    """True when the result is a dict with an ``error`` key (the tool failed)."""


class ToolProgressEvent(_UiBase):
    """A running tool call's progress; ``callId`` matches its ``tool_start``, and every
    ``tool_progress`` of a call comes before its ``tool_end``. ``data`` is what the tool
    reported (``tool_context.report_progress``); ``subEvent`` is a UI event of the
    sub-agent an ``AgentTool(stream_events=True)`` runs (its text, tool calls, thoughts:
    the same protocol, nested; its ``agent`` is the sub-agent). Live only: progress is
    never stored, so session history has none."""

    type: Literal["tool_progress"] = "tool_progress"
    internal: Literal[True] = True
    call_id: str | None
    tool: str
    data: Any = None
    sub_event: UiEvent | None = None


class ApprovalRequiredEvent(_UiBase):
    """A tool call waits for a person's approval (google-adk's ``adk_request_confirmation``
    call): the turn ends here. Answer it in the next turn with a ``functionResponse``
    part ``{"id": requestId, "name": "adk_request_confirmation", "response":
    {"confirmed": true|false, "payload": ...}}``; the call then runs (or is refused) and
    its ``tool_end`` arrives in that turn."""

    type: Literal["approval_required"] = "approval_required"
    internal: Literal[False] = False
    request_id: str
    """The id of the ``adk_request_confirmation`` call: the ``id`` of the answer."""
    call_id: str | None
    """The waiting call: its ``tool_start`` has this ``callId``."""
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    hint: str = ""
    """Why approval is needed (the tool's hint), for the person asked."""
    payload: Any = None
    """Data the tool attached to its request, if any."""


class ApprovalDecision(BaseModel):
    """One answer to an ``approval_required`` event, in a ``user_message``."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    request_id: str | None
    call_id: str | None = None
    tool: str | None = None
    """The call's tool, when the request is known (it is in session history)."""
    confirmed: bool
    payload: Any = None


class AuthRequiredEvent(_UiBase):
    """A tool call waits for the user's credential (google-adk's ``adk_request_credential``
    call): the turn ends here. Answer it in the next turn with a ``functionResponse`` part
    ``{"id": requestId, "name": "adk_request_credential", "response": authConfig}``, its
    ``exchangedAuthCredential`` filled in (an API key, a token, or for OAuth2 the
    ``authResponseUri`` the browser landed on); the call then runs again and its
    ``tool_end`` arrives in that turn."""

    type: Literal["auth_required"] = "auth_required"
    internal: Literal[False] = False
    request_id: str
    """The id of the ``adk_request_credential`` call: the ``id`` of the answer."""
    call_id: str | None
    """The waiting call: its ``tool_start`` has this ``callId``."""
    tool: str | None = None
    """The waiting call's tool, when its ``tool_start`` was in the same run."""
    scheme_type: str | None = None
    """The OpenAPI security scheme type: ``apiKey``, ``http``, ``oauth2`` or
    ``openIdConnect``."""
    http_scheme: str | None = None
    """For ``http``: the scheme (``bearer``, ``basic``)."""
    key_name: str | None = None
    """For ``apiKey``: the header, query parameter or cookie that carries the key."""
    key_location: str | None = None
    """For ``apiKey``: ``header``, ``query`` or ``cookie``."""
    auth_uri: str | None = None
    """For ``oauth2`` / ``openIdConnect``: the URL the user opens to sign in."""
    credential_key: str | None = None
    """The name of the credential in credential services."""
    auth_config: dict[str, Any] = Field(default_factory=dict)
    """The ``authConfig`` as sent (no secret): echo it, filled in, as the answer."""


class CredentialAnswer(BaseModel):
    """One answer to an ``auth_required`` event, in a ``user_message`` (never the
    credential itself)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    request_id: str | None
    call_id: str | None = None
    tool: str | None = None
    """The waiting call's tool, when the request and the call are known."""
    scheme_type: str | None = None
    """The scheme of the request (``apiKey``, ``http``, ``oauth2``, ``openIdConnect``)."""
    signed_in: bool = False
    """True for an OAuth2 / OpenID Connect answer (a sign-in)."""


class InputRequiredEvent(_UiBase):
    """A graph workflow node asks the user for input (a ``RequestInput``: google-adk's
    ``adk_request_input`` call): the turn ends here. Answer it in the next turn with a
    ``functionResponse`` part ``{"id": requestId, "name": "adk_request_input",
    "response": {"result": value}}``; the workflow then goes on. The same ``requestId``
    again means the request waits again (its answer was refused): show it unanswered."""

    type: Literal["input_required"] = "input_required"
    internal: Literal[False] = False
    request_id: str
    """The id of the ``adk_request_input`` call (the node's ``interrupt_id``): the
    ``id`` of the answer."""
    node: str | None = None
    """The name of the asking node."""
    node_path: str | None = None
    """Its path in the run (``booking@1/seats@1``)."""
    message: str | None = None
    """What to ask the user."""
    payload: Any = None
    """Data the node attached to its request, if any."""
    response_schema: dict[str, Any] | None = None
    """The JSON schema the answer must fit (None: any text)."""
    kind: Literal["input", "approval"] = "input"
    """``approval``: the workflow asks to approve a call of ``tool`` (a ToolNode's tool,
    or a function node, with ``require_confirmation``; request id
    ``wf_tool_confirmation:...``). Show Approve / Reject and answer ``{"result":
    {"confirmed": true|false}}``; ``message`` is the hint."""
    tool: str | None = None
    """For an approval: the tool (or function node) waiting to run."""
    args: dict[str, Any] | None = None
    """For an approval: the call's arguments."""
    confirmation_payload: Any = None
    """For an approval: data the tool attached to its request, if any."""


class InputAnswer(BaseModel):
    """One answer to an ``input_required`` event, in a ``user_message``."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    request_id: str | None
    node: str | None = None
    """The asking node, when the request is known (it is in session history)."""
    value: Any = None
    """The answer as sent (``response.result``, or the whole response otherwise)."""
    kind: Literal["input", "approval"] = "input"
    """``approval``: the answer to an approval (``input_required`` of kind approval)."""
    tool: str | None = None
    """For an approval: the tool it approves or rejects, when the request is known."""
    confirmed: bool | None = None
    """For an approval: the decision (None: the answer holds no boolean ``confirmed``)."""


class ContentEvent(_UiBase):
    """A text delta of a chat message: append ``delta`` to message ``messageId``."""

    type: Literal["content"] = "content"
    internal: Literal[False] = False
    message_id: str
    delta: str


class FinalEvent(_UiBase):
    """Message ``messageId`` is complete: replace its text with ``text`` (the stored
    text; normally its ``content`` deltas joined). Every message gets one ``final``."""

    type: Literal["final"] = "final"
    internal: Literal[False] = False
    message_id: str
    text: str
    interim: bool = False
    """True when the agent went on to call tools in the same turn (e.g. "Let me
    check."): text shown to the user, but not the agent's answer."""
    truncated: bool = False
    """True when the run failed or was cancelled while the message was streaming."""


class ErrorEvent(_UiBase):
    """Something failed. ``fatal: true`` ends the run: ``done`` follows at once."""

    type: Literal["error"] = "error"
    internal: Literal[False] = False
    message: str
    error_type: str | None = None
    """The exception class name, or the model's error code."""
    fatal: bool
    request_ids: list[str] = Field(default_factory=list)
    """The input requests whose answer the run refused (``InputAnswerError``): they
    wait again and can be answered once more."""


class DoneEvent(_UiBase):
    """The last event of every run, exactly once, whatever happened."""

    type: Literal["done"] = "done"
    internal: Literal[False] = False
    reason: Literal["completed", "error", "cancelled", "budget"]
    """``budget``: the turn reached a limit of its budget (see ``RunConfig.budget``)."""
    final_text: str | None = None
    """The text of the last non-interim message shown in the chat, if any."""


class UserMessageEvent(_UiBase):
    """A user's message; only in session history (``GET .../ui-events``)."""

    type: Literal["user_message"] = "user_message"
    internal: Literal[False] = False
    text: str
    """The message's text; for an answer to approval requests, one line per answer
    ("Approved pay", "Rejected pay"); for an answer to credential requests, one line per
    answer ("Signed in", "Provided a credential": never the credential); for an answer
    to input requests, the answers themselves (for a workflow's approval, "Approved
    pay" / "Rejected pay")."""
    approvals: list[ApprovalDecision] = Field(default_factory=list)
    """The approval requests this message answers (empty for an ordinary message)."""
    credentials: list[CredentialAnswer] = Field(default_factory=list)
    """The credential requests this message answers (empty for an ordinary message)."""
    inputs: list[InputAnswer] = Field(default_factory=list)
    """The input requests this message answers (empty for an ordinary message)."""


UiEvent = Annotated[
    ThinkingEvent
    | AgentActiveEvent
    | ToolStartEvent
    | ToolEndEvent
    | ToolProgressEvent
    | ApprovalRequiredEvent
    | AuthRequiredEvent
    | InputRequiredEvent
    | ContentEvent
    | FinalEvent
    | ErrorEvent
    | DoneEvent
    | UserMessageEvent,
    Field(discriminator="type"),
]
"""Any UI event; parse JSON with :data:`UI_EVENT_ADAPTER`."""

ToolProgressEvent.model_rebuild()  # its sub_event is any UI event

UI_EVENT_ADAPTER: TypeAdapter[UiEvent] = TypeAdapter(UiEvent)
"""``UI_EVENT_ADAPTER.validate_python(data)`` parses one event (camelCase or snake_case)."""

UI_EVENT_TYPES: tuple[str, ...] = (
    "thinking",
    "agent_active",
    "tool_start",
    "tool_end",
    "tool_progress",
    "approval_required",
    "auth_required",
    "input_required",
    "content",
    "final",
    "error",
    "done",
    "user_message",
)


def protocol_info() -> dict[str, Any]:
    """What ``GET /ui-protocol`` returns: the version and the event types."""
    return {"version": PROTOCOL_VERSION, "types": list(UI_EVENT_TYPES)}
