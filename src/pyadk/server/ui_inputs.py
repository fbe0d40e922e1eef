"""Input requests in the UI protocol: a graph workflow node's ``adk_request_input`` call
(``RequestInput``) as ``input_required``, the user's answers, and refused answers.

A workflow's approval request (id ``wf_tool_confirmation:...``, payload ``tool_name``
and ``args``) is an ``input_required`` of kind ``approval``, its answer ("Approved pay")
an input answer of kind ``approval``.

A refused answer (``InputAnswerError``) is told by the workflow's pause record: written
again after the answer, it still waits on the answered request. This module reads that
record (and node paths) from ``custom_metadata`` by key, without importing
``pyadk.workflow``: a server whose agents have no workflow never loads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pyadk import types
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME as INPUT_REQUEST
from pyadk.events.event import Event
from pyadk.server.ui_events import InputAnswer, InputRequiredEvent, UiEvent

WORKFLOW_PAUSED = "workflow_paused"
"""The ``custom_metadata`` key of a graph workflow's pause record."""
NODE_INFO = "node_info"
"""The ``custom_metadata`` key of a workflow node event's node path."""
APPROVAL_PREFIX = "wf_tool_confirmation:"
"""The id prefix of a workflow's approval request (a ToolNode's or a function node's
``require_confirmation``): its answer is a ``ToolConfirmation`` dict."""

Base = Callable[[Event, str | None], dict[str, Any]]
"""The common fields of a new UI event (the converter's: it numbers them)."""


def input_text(answer: InputAnswer) -> str:
    """How an answer reads in the chat: a string as is, anything else as compact JSON
    (what the browser's ``JSON.stringify`` makes of it)."""
    value = answer.value
    if answer.kind == "approval" and answer.confirmed is not None:
        return f"{'Approved' if answer.confirmed else 'Rejected'} {answer.tool or 'a tool'}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def answer_value(response: Any) -> Any:
    """What a function response to an input request answers (``{"result": x}``: x)."""
    if isinstance(response, dict) and set(response) == {"result"}:
        return response["result"]
    return response


def waiting_inputs(metadata: dict[str, Any] | None) -> set[str] | None:
    """The input requests a workflow's pause record still waits on (None: the event is
    no pause record)."""
    record = metadata.get(WORKFLOW_PAUSED) if metadata else None
    if not isinstance(record, dict):
        return None
    waiting: set[str] = set()
    nodes = record.get("waiting")
    for node in nodes.values() if isinstance(nodes, dict) else ():
        if not isinstance(node, dict):
            continue
        requests = node.get("requests")
        requests = requests if isinstance(requests, dict) else {}
        waiting.update(str(i) for i in node.get("interrupts") or () if i in requests)
    return waiting


def node_path_of(event: Event) -> str | None:
    """The node path a workflow node's event carries (None for other events)."""
    info = (event.custom_metadata or {}).get(NODE_INFO)
    return _text(info.get("path")) if isinstance(info, dict) else None


def node_name(path: str) -> str:
    """The node's name in a node path (``wf@1/seats@1``: ``seats``)."""
    return path.rsplit("/", 1)[-1].split("@", 1)[0]


def is_approval(request_id: str | None) -> bool:
    """Whether an input request is a workflow's approval request (by its id)."""
    return bool(request_id) and str(request_id).startswith(APPROVAL_PREFIX)


def _approval_fields(call: types.FunctionCall, node: str | None) -> dict[str, Any]:
    """The ``input_required`` fields telling an approval: kind, tool, args, payload."""
    if not is_approval(call.id):
        return {}
    shown = (call.args or {}).get("payload")
    shown = shown if isinstance(shown, dict) else {}
    args = shown.get("args")
    return {
        "kind": "approval",
        "tool": _text(shown.get("tool_name")) or node or "a tool",
        "args": dict(args) if isinstance(args, dict) else {},
        "confirmation_payload": shown.get("confirmation_payload"),
    }


def _confirmed(value: Any) -> bool | None:
    """The decision of an approval's answer (None: it holds no boolean ``confirmed``)."""
    confirmed = value.get("confirmed") if isinstance(value, dict) else None
    return confirmed if isinstance(confirmed, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class InputRequests:
    """The input requests one converter saw: asked, answered, waiting again."""

    def __init__(self) -> None:
        self._asked: dict[str, InputRequiredEvent] = {}
        """Request id -> its ``input_required`` event (to show it again)."""
        self._answered: set[str] = set()
        """Requests answered by the run's message, or by a user event (history)."""
        self._waiting: set[str] = set()
        """The requests the latest pause record waits on."""

    def answering(self, message: types.Content | None) -> None:
        """Notes the requests the run's own message answers."""
        for part in (message.parts or []) if message else []:
            response = part.function_response
            if response is not None and response.name == INPUT_REQUEST and response.id:
                self._answered.add(response.id)

    def ask(self, event: Event, call: types.FunctionCall, base: dict[str, Any]) -> UiEvent:
        """The ``input_required`` event of an ``adk_request_input`` call."""
        args = call.args or {}
        path = node_path_of(event)
        schema = args.get("response_schema", args.get("responseSchema"))
        request_id = call.id or ""
        node = node_name(path) if path else None
        self._answered.discard(request_id)  # asked (again): not answered yet
        asked = InputRequiredEvent(
            **base,
            request_id=request_id,
            node=node,
            node_path=path,
            message=_text(args.get("message")),
            payload=args.get("payload"),
            response_schema=schema if isinstance(schema, dict) else None,
            **_approval_fields(call, node),
        )
        self._asked[request_id] = asked
        return asked

    def answers(self, event: Event) -> list[InputAnswer]:
        """The answers to input requests in a user's message."""
        answers: list[InputAnswer] = []
        for response in event.get_function_responses():
            if response.name != INPUT_REQUEST:
                continue
            self._answered.add(response.id or "")
            asked = self._asked.get(response.id or "")
            value = answer_value(response.response)
            approval = asked.kind == "approval" if asked else is_approval(response.id)
            answers.append(
                InputAnswer(
                    request_id=response.id,
                    node=asked.node if asked else None,
                    value=value,
                    kind="approval" if approval else "input",
                    tool=asked.tool if asked else None,
                    confirmed=_confirmed(value) if approval else None,
                )
            )
        return answers

    def reopened(self, event: Event, base: Base) -> list[UiEvent]:
        """For a pause record still waiting on an answered request (the answer was
        refused): that request's ``input_required`` again, when it was seen."""
        waiting = waiting_inputs(event.custom_metadata)
        if waiting is None:
            return []
        self._waiting = waiting
        again: list[UiEvent] = []
        for request_id in sorted(waiting & self._answered):
            asked = self._asked.get(request_id)
            if asked is not None:
                fields = asked.model_dump(exclude={"id", "seq", "timestamp", "event_id"})
                again.append(InputRequiredEvent(**{**fields, **base(event, asked.agent)}))
        return again

    def refused(self, exc: BaseException) -> list[str]:
        """The requests whose answer made the run fail (an ``InputAnswerError``)."""
        from pyadk.workflow._errors import InputAnswerError  # loaded only on a failure

        if not isinstance(exc, InputAnswerError):
            return []
        refused = self._waiting & self._answered
        return sorted(refused or self._waiting)  # message unknown: every waiting request
