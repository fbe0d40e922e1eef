"""UiEventConverter: ADK events of one run in, UI protocol events out (``ui_events``).

One converter per run: it remembers the active agent, the messages being streamed
and the sequence number. Rules (``docs/ui-events.md`` has the full table):

- partial text becomes ``content`` deltas of an open message (per author); the
  aggregated event closes it with ``final``: the deltas joined or, if a callback
  changed the answer after it streamed, the stored text;
- transfers are silent: a transfer_to_agent call is a ``thinking`` entry (kind
  ``handoff``), its result is ``agent_active`` for the target, text in the same model
  turn and announcement sentences go to ``thinking`` (kind ``handoff_text``);
- other tool calls and results are ``tool_start``/``tool_end``; partial function calls
  are ignored (the aggregated event carries the call that runs);
- tool approval: an ``adk_request_confirmation`` call is ``approval_required`` (not a
  ``tool_start``); the held-back call's placeholder result (its id is in the event's
  ``requested_tool_confirmations``) gets no ``tool_end``: the call waits, and the result
  of the turn that answers closes it (a rejected call's result is an error result); a
  user's answer is a ``user_message`` ("Approved pay") with its ``approvals``;
- tool auth, the same way: an ``adk_request_credential`` call is ``auth_required``
  (not a ``tool_start``), the waiting call's placeholder result (its id is in
  ``requested_auth_configs``) gets no ``tool_end``, and a user's answer is a
  ``user_message`` ("Signed in", "Provided a credential": never the credential) with
  its ``credentials``;
- input requests, the same way: a workflow node's ``adk_request_input`` call
  (``RequestInput``) is ``input_required`` (not a ``tool_start``), a user's answer a
  ``user_message`` (the answer's text) with its ``inputs``; a pause record of the
  workflow that still waits on an answered request means the answer was refused: the
  request is shown again (``input_required``, same id) when known, and a failed run's
  fatal ``error`` names such requests in ``requestIds``;
- tool progress (partial events with ``custom_metadata["tool_progress"]``) is
  ``tool_progress``: a tool's report as ``data``; an event of an AgentTool's sub-agent
  goes through a nested converter of that call, each of its UI events a ``subEvent``
  (closed with the nested ``done`` before the call's ``tool_end``);
- outcome, state, artifact, escalation and code events are ``thinking`` entries (a
  credential in a state change, such as the token an OAuth2 answer was traded for,
  is shown as ``"(credential hidden)"``);
- :meth:`finish`, :meth:`fail` and :meth:`cancel` close open messages and end the run
  with exactly one ``done`` (``fail`` emits a fatal ``error`` first).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.budget import BUDGET_EXCEEDED
from pyadk.auth.auth_credential import AuthCredential
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME as AUTH_REQUEST
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME as INPUT_REQUEST
from pyadk.events.event import Event
from pyadk.events.outcome import AgentOutcome, outcome_state_key
from pyadk.events.tool_confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME as APPROVAL_REQUEST,
)
from pyadk.events.tool_confirmation import ToolConfirmation
from pyadk.server.handoff_filter import HandoffTextFilter, Piece, visible_text
from pyadk.server.ui_events import (
    AgentActiveEvent,
    ApprovalDecision,
    ApprovalRequiredEvent,
    AuthRequiredEvent,
    ContentEvent,
    CredentialAnswer,
    DoneEvent,
    ErrorEvent,
    FinalEvent,
    ThinkingEvent,
    ThinkingKind,
    ToolEndEvent,
    ToolProgressEvent,
    ToolStartEvent,
    UiEvent,
    UserMessageEvent,
)
from pyadk.server.ui_inputs import InputRequests, input_text, node_name, node_path_of
from pyadk.tools.tool_progress import TOOL_PROGRESS_KEY

TRANSFER_TOOL = "transfer_to_agent"
CONSENT_SCHEMES = frozenset({"oauth2", "openIdConnect"})
"""Security scheme types whose credential comes from a sign-in."""
HIDDEN_CREDENTIAL = "(credential hidden)"
"""Shown instead of a credential in a state change."""


@dataclass
class _Message:
    id: str
    filter: HandoffTextFilter
    released: list[str] = field(default_factory=list)


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _decision_text(decision: ApprovalDecision) -> str:
    verb = "Approved" if decision.confirmed else "Rejected"
    return f"{verb} {decision.tool}" if decision.tool else verb


def _credential_text(answer: CredentialAnswer) -> str:
    return "Signed in" if answer.signed_in else "Provided a credential"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _get(data: dict[str, Any], *names: str) -> Any:
    """The first of ``names`` (camelCase and snake_case spellings) that ``data`` has."""
    for name in names:
        if name in data:
            return data[name]
    return None


def _shown_state(value: Any) -> Any:
    """A state value as the thinking panel shows it: a credential (an AuthCredential,
    or its JSON) is hidden."""
    if isinstance(value, AuthCredential):
        return HIDDEN_CREDENTIAL
    if isinstance(value, dict) and isinstance(_get(value, "authType", "auth_type"), str):
        return HIDDEN_CREDENTIAL
    return value


def _scheme_type(config: dict[str, Any]) -> str | None:
    """The security scheme type of an ``authConfig`` (JSON)."""
    return _text(_mapping(_get(config, "authScheme", "auth_scheme")).get("type"))


def _walk(agent: BaseAgent) -> Iterator[BaseAgent]:
    yield agent
    for sub in agent.sub_agents:
        yield from _walk(sub)


class UiEventConverter:
    """Converts the ADK events of one run to UI events (see the module docstring)."""

    def __init__(
        self,
        *,
        run_id: str,
        root_agent: BaseAgent | None = None,
        filter_handoff_text: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.run_id = run_id
        self._agents = {a.name: a for a in _walk(root_agent)} if root_agent else {}
        self._filter_enabled = filter_handoff_text
        self._clock = clock
        self._seq = 0
        self._count = 0
        self._active: str | None = None
        self._invocation_id: str | None = None
        self._messages: dict[str, _Message] = {}
        self._thoughts: dict[str, str] = {}
        self._final_text: str | None = None
        self._requests: dict[str, tuple[str | None, str | None]] = {}
        """Approval request id -> (call id, tool) of the call it asks about."""
        self._auth_requests: dict[str, tuple[str | None, str | None, str | None]] = {}
        """Credential request id -> (call id, tool, scheme type) of the call it is for."""
        self._inputs = InputRequests()
        self._tools: dict[str, str] = {}
        """Call id -> tool, from the run's ``tool_start`` events."""
        self._nested: dict[str, UiEventConverter] = {}
        """Call id -> the converter of the AgentTool sub-agent's events of that call."""
        self.done = False
        self._end_reason: Literal["completed", "budget"] = "completed"

    # -- public API ---------------------------------------------------------------

    def answering(self, message: types.Content | None) -> None:
        """Tells the converter what the run's own message answers: a live run never
        yields the user's message, yet a refused input answer is told by it."""
        self._inputs.answering(message)

    def convert(self, event: Event) -> list[UiEvent]:
        """The UI events for one ADK event (possibly none)."""
        out: list[UiEvent] = []
        if self.done:
            return out
        self._invocation_id = event.invocation_id or self._invocation_id
        if event.author == "user":
            node_path = node_path_of(event)
            if node_path is not None:  # an agent node's input: the workflow's, not the user's
                node = node_name(node_path)
                data = {"node": node, "nodePath": node_path}
                out.append(self._thinking(event, "node_input", event.text or "", data, agent=node))
                return out
            approvals = self._approvals(event)
            credentials = self._credentials(event)
            inputs = self._inputs.answers(event)
            lines = [
                event.text or "",
                *(_decision_text(a) for a in approvals),
                *(_credential_text(c) for c in credentials),
                *(input_text(i) for i in inputs),
            ]
            text = "\n".join(line for line in lines if line)
            if text:
                out.append(
                    UserMessageEvent(
                        **self._base(event),
                        text=text,
                        approvals=approvals,
                        credentials=credentials,
                        inputs=inputs,
                    )
                )
            return out
        if event.partial and event.custom_metadata:
            progress = event.custom_metadata.get(TOOL_PROGRESS_KEY)
            if isinstance(progress, dict):
                self._activate(event.author, event, out)
                self._progress(event, progress, out)
                return out
        outcome = event.actions.agent_outcome
        if event.is_outcome_event() and outcome is not None:
            out.append(self._outcome(event, outcome))
            return out
        self._activate(event.author, event, out)
        if event.error_code or event.error_message:
            message = event.error_message or f"Model error {event.error_code}"
            over_budget = event.error_code == BUDGET_EXCEEDED  # the turn's last event
            if over_budget:
                self._end_reason = "budget"
            out.append(
                ErrorEvent(
                    **self._base(event),
                    message=message,
                    error_type=event.error_code,
                    fatal=over_budget,
                )
            )
        if event.partial:
            self._partial(event, out)
        else:
            self._complete(event, out)
        if outcome is not None:  # e.g. a before_agent_callback's answer, which skips it
            out.append(self._outcome(event, outcome))
        if not event.partial:
            out += self._inputs.reopened(event, lambda e, agent: self._base(e, agent=agent))
        return out

    def finish(self) -> list[UiEvent]:
        """Closes open messages and emits ``done`` (reason ``completed``, or ``budget``
        when the turn ended on a limit of its budget)."""
        return self._end(self._end_reason, truncated=False)

    def fail(self, exc: BaseException) -> list[UiEvent]:
        """A fatal ``error`` for ``exc``, then ``done`` (reason ``error``)."""
        if self.done:
            return []
        out = self._close_all(truncated=True)
        kind = type(exc).__name__
        base = self._base(None)
        refused = self._inputs.refused(exc)
        out.append(
            ErrorEvent(
                **base,
                message=str(exc) or kind,
                error_type=kind,
                fatal=True,
                request_ids=refused,
            )
        )
        return out + self._end("error", truncated=True)

    def cancel(self) -> list[UiEvent]:
        """Closes open messages and emits ``done`` (reason ``cancelled``)."""
        return self._end("cancelled", truncated=True)

    # -- conversion ---------------------------------------------------------------

    def _outcome(self, event: Event, outcome: AgentOutcome) -> UiEvent:
        data = outcome.model_dump(mode="json", by_alias=True, exclude_none=True)
        text = f"{outcome.agent}: {outcome.describe()}"
        return self._thinking(event, "outcome", text, data, agent=outcome.agent)

    def _progress(self, event: Event, progress: dict[str, Any], out: list[UiEvent]) -> None:
        call_id = _text(progress.get("function_call_id"))
        tool = str(progress.get("tool_name") or "")
        nested = progress.get("agent_event")
        if not isinstance(nested, dict):
            data = progress.get("data")
            out.append(
                ToolProgressEvent(**self._base(event), call_id=call_id, tool=tool, data=data)
            )
            return
        converter = self._nested.get(call_id or "")
        if converter is None:
            converter = UiEventConverter(
                run_id=f"{self.run_id}/{call_id}",
                filter_handoff_text=self._filter_enabled,
                clock=self._clock,
            )
            self._nested[call_id or ""] = converter
        for sub in converter.convert(Event.model_validate(nested)):
            out.append(
                ToolProgressEvent(**self._base(event), call_id=call_id, tool=tool, sub_event=sub)
            )

    def _end_nested(self, event: Event, call_id: str | None, tool: str, out: list[UiEvent]) -> None:
        """Closes the nested stream of an AgentTool call whose result came."""
        converter = self._nested.pop(call_id or "", None)
        if converter is None:
            return
        for sub in converter.finish():
            out.append(
                ToolProgressEvent(**self._base(event), call_id=call_id, tool=tool, sub_event=sub)
            )

    def _partial(self, event: Event, out: list[UiEvent]) -> None:
        for part in (event.content.parts or []) if event.content else []:
            if part.text is None:
                continue  # partial function calls are not executable: wait for the final
            if part.thought:
                message_id = self._thoughts.setdefault(event.author, self._new_id())
                out.append(self._thinking(event, "thought", part.text, message_id=message_id))
                continue
            message = self._messages.get(event.author)
            if message is None:
                message = self._messages[event.author] = self._new_message()
            self._pieces(message, message.filter.feed(part.text), event, out)

    def _complete(self, event: Event, out: list[UiEvent]) -> None:
        calls = event.get_function_calls()
        transfer = any(call.name == TRANSFER_TOOL for call in calls)
        parts = (event.content.parts or []) if event.content else []
        if self._thoughts.pop(event.author, None) is None:
            for part in parts:
                if part.thought and part.text:
                    out.append(self._thinking(event, "thought", part.text))
        message = self._messages.pop(event.author, None)
        stored: str | None = None  # the chat text of the aggregated (stored) event
        if message is not None:
            self._pieces(message, message.filter.flush(all_handoff=transfer), event, out)
            if event.text is not None:
                fresh = self._new_filter()
                stored = visible_text(fresh.split(event.text, all_handoff=transfer))
        elif event.text:
            message = self._new_message()
            pieces = message.filter.split(event.text, all_handoff=transfer)
            self._pieces(message, pieces, event, out)
        if message is not None:
            interim = bool(calls)
            self._close(message, event, out, interim=interim, truncated=False, text=stored)
        for part in parts:
            if part.executable_code is not None:
                code = part.executable_code
                data = {"language": code.language}
                out.append(self._thinking(event, "code", code.code or "", data))
            if part.code_execution_result is not None:
                result = part.code_execution_result
                data = {"outcome": result.outcome.value if result.outcome else None}
                out.append(self._thinking(event, "code", result.output or "", data))
        self._calls(event, out)
        self._actions(event, out)

    def _calls(self, event: Event, out: list[UiEvent]) -> None:
        long_running = event.long_running_tool_ids or set()
        actions = event.actions
        waiting = {*actions.requested_tool_confirmations, *actions.requested_auth_configs}
        for call in event.get_function_calls():
            if call.name == APPROVAL_REQUEST:
                out.append(self._approval_required(event, call))
                continue
            if call.name == AUTH_REQUEST:
                out.append(self._auth_required(event, call))
                continue
            if call.name == INPUT_REQUEST:
                out.append(self._inputs.ask(event, call, self._base(event)))
                continue
            if call.name == TRANSFER_TOOL:
                target = str((call.args or {}).get("agent_name", ""))
                data = {"from": event.author, "to": target, "callId": call.id}
                out.append(self._thinking(event, "handoff", f"Handing off to {target}", data))
                continue
            if call.id:
                self._tools[call.id] = call.name or ""
            out.append(
                ToolStartEvent(
                    **self._base(event),
                    call_id=call.id,
                    tool=call.name or "",
                    args=dict(call.args or {}),
                    long_running=call.id in long_running,
                )
            )
        for response in event.get_function_responses():
            if response.name == TRANSFER_TOOL:
                continue  # the handoff shows as agent_active (below, from the actions)
            if response.id in waiting:
                continue  # waits for an answer: the answering turn's result closes it
            result = response.response
            if self._nested:
                self._end_nested(event, response.id, response.name or "", out)
            out.append(
                ToolEndEvent(
                    **self._base(event),
                    call_id=response.id,
                    tool=response.name or "",
                    result=result,
                    is_error=isinstance(result, dict) and "error" in result,
                )
            )

    def _approval_required(self, event: Event, call: types.FunctionCall) -> UiEvent:
        args = call.args or {}
        original = _mapping(args.get("originalFunctionCall"))
        asked = _mapping(args.get("toolConfirmation"))
        call_id = original.get("id")
        call_id = call_id if isinstance(call_id, str) else None
        tool = str(original.get("name") or "")
        self._requests[call.id or ""] = (call_id, tool or None)
        return ApprovalRequiredEvent(
            **self._base(event),
            request_id=call.id or "",
            call_id=call_id,
            tool=tool,
            args=_mapping(original.get("args")),
            hint=str(asked.get("hint") or ""),
            payload=asked.get("payload"),
        )

    def _auth_required(self, event: Event, call: types.FunctionCall) -> UiEvent:
        args = call.args or {}
        config = _mapping(_get(args, "authConfig", "auth_config"))
        call_id = _text(_get(args, "functionCallId", "function_call_id"))
        tool = self._tools.get(call_id) if call_id else None
        scheme = _mapping(_get(config, "authScheme", "auth_scheme"))
        kind = _scheme_type(config)
        exchanged = _mapping(_get(config, "exchangedAuthCredential", "exchanged_auth_credential"))
        raw = _mapping(_get(config, "rawAuthCredential", "raw_auth_credential"))
        auth_uri = None
        if kind in CONSENT_SCHEMES:
            for credential in (exchanged, raw):
                oauth2 = _mapping(credential.get("oauth2"))
                auth_uri = auth_uri or _text(_get(oauth2, "authUri", "auth_uri"))
        api_key = kind == "apiKey"
        self._auth_requests[call.id or ""] = (call_id, tool, kind)
        return AuthRequiredEvent(
            **self._base(event),
            request_id=call.id or "",
            call_id=call_id,
            tool=tool,
            scheme_type=kind,
            http_scheme=_text(scheme.get("scheme")) if kind == "http" else None,
            key_name=_text(scheme.get("name")) if api_key else None,
            key_location=_text(_get(scheme, "in", "in_")) if api_key else None,
            auth_uri=auth_uri,
            credential_key=_text(_get(config, "credentialKey", "credential_key")),
            auth_config=config,
        )

    def _credentials(self, event: Event) -> list[CredentialAnswer]:
        """The answers to credential requests in a user's message, without the
        credentials (the run refused any that do not fit their request)."""
        answers: list[CredentialAnswer] = []
        for response in event.get_function_responses():
            if response.name != AUTH_REQUEST:
                continue
            call_id, tool, kind = self._auth_requests.get(response.id or "", (None, None, None))
            if kind is None:  # a request of an earlier run: the answer tells the scheme
                answer = _mapping(response.response)
                if set(answer) == {"response"}:
                    answer = _mapping(answer["response"])
                kind = _scheme_type(answer)
            answers.append(
                CredentialAnswer(
                    request_id=response.id,
                    call_id=call_id,
                    tool=tool,
                    scheme_type=kind,
                    signed_in=kind in CONSENT_SCHEMES,
                )
            )
        return answers

    def _approvals(self, event: Event) -> list[ApprovalDecision]:
        """The answers to approval requests in a user's message (unreadable ones are
        left out: the run refuses them)."""
        decisions: list[ApprovalDecision] = []
        for response in event.get_function_responses():
            if response.name != APPROVAL_REQUEST:
                continue
            try:
                answer = ToolConfirmation.from_response_dict(response.response)
            except ValueError:  # also a ValidationError or a JSONDecodeError
                continue
            call_id, tool = self._requests.get(response.id or "", (None, None))
            decisions.append(
                ApprovalDecision(
                    request_id=response.id,
                    call_id=call_id,
                    tool=tool,
                    confirmed=answer.confirmed,
                    payload=answer.payload,
                )
            )
        return decisions

    def _actions(self, event: Event, out: list[UiEvent]) -> None:
        actions = event.actions
        # An outcome's own state key is shown as the outcome entry, not as a state change.
        own = outcome_state_key(actions.agent_outcome.agent) if actions.agent_outcome else None
        delta = {k: _shown_state(v) for k, v in actions.state_delta.items() if k != own}
        if delta:
            text = "State updated: " + ", ".join(sorted(delta))
            out.append(self._thinking(event, "state", text, delta))
        if actions.artifact_delta:
            versions = sorted(actions.artifact_delta.items())
            saved = ", ".join(f"{name} (v{version})" for name, version in versions)
            out.append(
                self._thinking(event, "artifact", f"Saved {saved}", dict(actions.artifact_delta))
            )
        if actions.escalate:
            out.append(self._thinking(event, "escalate", f"{event.author} escalated"))
        if actions.transfer_to_agent:
            self._activate(actions.transfer_to_agent, event, out, reason="transfer")

    # -- helpers ------------------------------------------------------------------

    def _activate(
        self,
        agent: str,
        event: Event,
        out: list[UiEvent],
        reason: Literal["start", "transfer", "switch"] | None = None,
    ) -> None:
        if agent == self._active:
            return
        known = self._agents.get(agent)
        out.append(
            AgentActiveEvent(
                **self._base(event, agent=agent),
                previous_agent=self._active,
                reason=reason or ("start" if self._active is None else "switch"),
                description=(known.description or None) if known else None,
            )
        )
        self._active = agent

    def _pieces(
        self, message: _Message, pieces: list[Piece], event: Event | None, out: list[UiEvent]
    ) -> None:
        visible: list[str] = []  # consecutive chat pieces go out as one delta
        for text, hidden in [*pieces, ("", True)]:
            if not hidden:
                visible.append(text)
                continue
            if visible:
                delta = "".join(visible)
                message.released.append(delta)
                out.append(ContentEvent(**self._base(event), message_id=message.id, delta=delta))
                visible = []
            if text.strip():
                out.append(self._thinking(event, "handoff_text", text.strip()))

    def _close(
        self,
        message: _Message,
        event: Event | None,
        out: list[UiEvent],
        *,
        interim: bool,
        truncated: bool,
        text: str | None = None,
    ) -> None:
        """Emits ``final``; ``text`` (the stored event's chat text) wins over the deltas
        when it differs, e.g. an after_model_callback changed the streamed answer."""
        if text is None:
            text = "".join(message.released)
        if not message.released:
            if not text:
                return  # nothing reached the chat: no message to close
            message.released.append(text)
            out.append(ContentEvent(**self._base(event), message_id=message.id, delta=text))
        out.append(
            FinalEvent(
                **self._base(event),
                message_id=message.id,
                text=text,
                interim=interim,
                truncated=truncated,
            )
        )
        if not interim and not truncated:
            self._final_text = text

    def _close_all(self, *, truncated: bool) -> list[UiEvent]:
        out: list[UiEvent] = []
        for author, message in list(self._messages.items()):
            self._pieces(message, message.filter.flush(), None, out)
            self._close(message, None, out, interim=False, truncated=truncated)
            del self._messages[author]
        self._thoughts.clear()
        return out

    def _end(
        self, reason: Literal["completed", "error", "cancelled", "budget"], *, truncated: bool
    ) -> list[UiEvent]:
        if self.done:
            return []
        out = self._close_all(truncated=truncated)
        out.append(DoneEvent(**self._base(None), reason=reason, final_text=self._final_text))
        self.done = True
        return out

    def _thinking(
        self,
        event: Event | None,
        kind: ThinkingKind,
        text: str,
        data: dict[str, Any] | None = None,
        *,
        message_id: str | None = None,
        agent: str | None = None,
    ) -> ThinkingEvent:
        return ThinkingEvent(
            **self._base(event, agent=agent), kind=kind, text=text, data=data, message_id=message_id
        )

    def _new_id(self) -> str:
        self._count += 1
        return f"{self.run_id}:m{self._count}"

    def _new_filter(self) -> HandoffTextFilter:
        return HandoffTextFilter(list(self._agents), enabled=self._filter_enabled)

    def _new_message(self) -> _Message:
        return _Message(self._new_id(), self._new_filter())

    def _base(self, event: Event | None, *, agent: str | None = None) -> dict[str, Any]:
        self._seq += 1
        return {
            "id": f"{self.run_id}:{self._seq}",
            "seq": self._seq,
            "run_id": self.run_id,
            "agent": agent or (event.author if event is not None else self._active),
            "invocation_id": event.invocation_id if event is not None else self._invocation_id,
            "event_id": event.id if event is not None else None,
            "timestamp": event.timestamp if event is not None else self._clock(),
        }
