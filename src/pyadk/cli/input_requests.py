"""Input requests in `pyadk run`: a graph workflow node's ``adk_request_input`` call
(``RequestInput``) read from an event, the question the user is asked, and the answer
sent as the next message (``{"result": <the typed line>}``, which the workflow parses
as JSON where the requested type needs it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyadk import types
from pyadk.cli.approvals import is_workflow_approval
from pyadk.cli.compact_json import compact_json
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.events.event import Event

_TYPE_NAMES = {
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a JSON list",
    "object": "a JSON object",
}


@dataclass
class InputRequest:
    """One ``adk_request_input`` call: what a workflow node asks the user."""

    request_id: str
    asker: str
    message: str | None = None
    payload: Any | None = None
    schema: dict[str, Any] | None = None

    hidden = False
    """Input is not a secret: it is echoed and shown in the conversation."""

    def describe(self) -> str:
        """The question, e.g. ``How many seats? (a whole number; payload {"max": 4})``."""
        text = self.message or "input requested"
        details = [d for d in (self._expected(), self._payload()) if d]
        return f"{text} ({'; '.join(details)})" if details else text

    def prompt(self) -> str:
        """The question asked for the answer."""
        return "Your answer (empty: skip): "

    def answer(self, value: str) -> types.Part:
        """The function response answering this request with the typed ``value``."""
        response = types.FunctionResponse(
            id=self.request_id, name=REQUEST_INPUT_FUNCTION_CALL_NAME, response={"result": value}
        )
        return types.Part(function_response=response)

    def _expected(self) -> str:
        kind = self.schema.get("type") if self.schema else None
        return _TYPE_NAMES.get(kind, "") if isinstance(kind, str) else ""

    def _payload(self) -> str:
        return "" if self.payload is None else f"payload {compact_json(self.payload)}"


def input_requests(event: Event) -> list[InputRequest]:
    """The input requests of an event (a turn's last events when a workflow waits)."""
    requests: list[InputRequest] = []
    for call in event.get_function_calls():
        if call.name != REQUEST_INPUT_FUNCTION_CALL_NAME or not call.id:
            continue
        if is_workflow_approval(call.id):  # asked as an approval (see cli.approvals)
            continue
        args = call.args or {}
        message, schema = args.get("message"), args.get("response_schema")
        requests.append(
            InputRequest(
                request_id=call.id,
                asker=event.author,
                message=message if isinstance(message, str) and message else None,
                payload=args.get("payload"),
                schema=schema if isinstance(schema, dict) else None,
            )
        )
    return requests
