"""Terminal rendering of events for `pyadk run` (Rich, no markup interpretation).

Lines look like google-adk's ``[author]: text``; tool calls, tool results, transfers,
errors and non-success outcomes get their own lines. Streamed (partial) text is
printed as it arrives and not repeated when the aggregated event follows. A tool's
credential request is one line saying what it needs (and where to sign in), a tool
call waiting for approval one line with its arguments and hint, a workflow node's
input request one line with its question; the placeholder result of a call that waits
is not shown. The user's answers show as ``Approved pay``, ``Provided a credential``
(never the data sent), or as the input typed.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from pyadk.cli.approvals import approval_requests
from pyadk.cli.compact_json import compact_json
from pyadk.cli.credentials import credential_requests
from pyadk.cli.input_requests import input_requests
from pyadk.cli.node_outputs import node_output
from pyadk.events.client_requests import (
    CLIENT_REQUEST_NAMES,
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    REQUEST_INPUT_FUNCTION_CALL_NAME,
)
from pyadk.events.event import Event
from pyadk.events.outcome import OutcomeStatus
from pyadk.events.tool_confirmation import ToolConfirmation


def make_console(**kwargs: Any) -> Console:
    """A console that never wraps lines and never highlights or parses markup."""
    return Console(soft_wrap=True, highlight=False, **kwargs)


class EventRenderer:
    """Prints events on a console; keeps track of a text stream in progress."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._stream_author: str | None = None
        self._streamed = ""
        self.tools: dict[str, str] = {}
        """Call id -> tool name of the calls shown (credential requests name them), and
        approval request id -> the tool it asks for."""

    def user(self, text: str) -> None:
        """Prints a user message."""
        self.end_stream()
        self._line("user", text, "bold green")

    def error(self, message: str) -> None:
        """Prints an error that ended a turn."""
        self.end_stream()
        self.console.print(Text(f"error: {message}", style="bold red"))

    def info(self, message: str) -> None:
        """Prints a note from the CLI itself."""
        self.end_stream()
        self.console.print(Text(message, style="dim"))

    def event(self, event: Event) -> None:
        """Prints one event (partial events as a growing line of text)."""
        if event.author == "user":
            if event.text:
                self.user(event.text)
            for answered in self._answers(event):
                self.user(answered)
            return
        if event.partial:
            self._partial(event)
            return
        self._complete(event)

    def end_stream(self) -> None:
        """Ends a streamed line, if one is open."""
        if self._stream_author is not None:
            self.console.print()
        self._stream_author = None
        self._streamed = ""

    def _partial(self, event: Event) -> None:
        text = _visible_text(event)
        if not text:
            return
        if self._stream_author != event.author:
            self.end_stream()
            self._stream_author = event.author
            self.console.print(_prefix(event.author), end="")
        self._streamed += text
        self.console.print(Text(text), end="")

    def _complete(self, event: Event) -> None:
        text = _visible_text(event)
        already_streamed = (
            self._stream_author == event.author and bool(text) and text == self._streamed
        )
        self.end_stream()
        if text and not already_streamed:
            self._line(event.author, text, "bold cyan")
        for call in event.get_function_calls():
            if call.name in CLIENT_REQUEST_NAMES or call.name == REQUEST_INPUT_FUNCTION_CALL_NAME:
                continue  # shown below as what the run waits for
            if call.id:
                self.tools[call.id] = call.name or ""
            self._tool_line(event.author, "→", f"{call.name}({compact_json(call.args or {})})")
        for request in credential_requests(event, self.tools):
            line = Text(f"[{event.author}] credential: {request.describe()}", style="bold yellow")
            if request.signs_in:
                line.append(f": open {request.auth_uri or '(no sign-in URL was sent)'}")
            self.console.print(line)
        for approval in approval_requests(event):
            self.tools[approval.request_id] = approval.tool
            line = Text(f"[{event.author}] approval: {approval.describe()}", style="bold yellow")
            if approval.payload is not None:
                line.append(f" (payload {compact_json(approval.payload)})")
            self.console.print(line)
        for asked in input_requests(event):
            line = Text(f"[{event.author}] input: {asked.describe()}", style="bold yellow")
            self.console.print(line)
        actions = event.actions
        for response in event.get_function_responses():
            if response.id in actions.requested_auth_configs or (
                response.id in actions.requested_tool_confirmations
            ):
                continue  # the call waits for the user: its real result comes later
            shown = compact_json(response.response)
            self._tool_line(event.author, "←", f"{response.name} returned {shown}")
        output = node_output(event, compact_json)
        if output is not None and output.final:
            self._line(event.author, output.text, "bold cyan")
        elif output is not None:
            self._tool_line(event.author, "⇒", f"{output.node} output {output.text}")
        if event.actions.transfer_to_agent:
            self._tool_line(event.author, "⇢", f"transfer to {event.actions.transfer_to_agent}")
        if event.error_code or event.error_message:
            detail = ": ".join(str(p) for p in (event.error_code, event.error_message) if p)
            self.console.print(Text(f"[{event.author}] model error {detail}", style="red"))
        outcome = event.actions.agent_outcome
        if outcome is not None and outcome.status != OutcomeStatus.SUCCESS:
            style = "red" if outcome.failed else "yellow"
            message = f"[{outcome.agent}] outcome {outcome.describe()}"
            self.console.print(Text(message, style=style))

    def _answers(self, event: Event) -> list[str]:
        """A user event's answers to requests, as shown (never a credential)."""
        lines: list[str] = []
        for response in event.get_function_responses():
            if response.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME:
                try:
                    confirmed = ToolConfirmation.from_response_dict(response.response).confirmed
                except ValueError:  # not a confirmation (pydantic's errors are ValueErrors)
                    confirmed = False
                tool = self.tools.get(response.id or "", "a tool")
                lines.append(f"{'Approved' if confirmed else 'Rejected'} {tool}")
            elif response.name in CLIENT_REQUEST_NAMES:
                lines.append("Provided a credential")
            elif response.name == REQUEST_INPUT_FUNCTION_CALL_NAME:
                answer = response.response or {}
                value = answer.get("result", answer) if isinstance(answer, dict) else answer
                lines.append(value if isinstance(value, str) else compact_json(value))
        return lines

    def _line(self, author: str, text: str, style: str) -> None:
        line = _prefix(author, style)
        line.append(text)
        self.console.print(line)

    def _tool_line(self, author: str, arrow: str, body: str) -> None:
        line = Text(f"[{author}] {arrow} ", style="magenta")
        line.append(body, style="dim")
        self.console.print(line)


def _prefix(author: str, style: str = "bold cyan") -> Text:
    return Text(f"[{author}]: ", style=style)


def _visible_text(event: Event) -> str:
    """The event's non-thought text."""
    if event.content is None:
        return ""
    return "".join(p.text for p in event.content.parts or [] if p.text and not p.thought)
