"""`pyadk run`: a terminal chat with one agent (interactive, resumed or replayed)."""

from __future__ import annotations

import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from pyadk import types
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.auth.credential_service import InMemoryCredentialService
from pyadk.cli.agent_loading import load_app
from pyadk.cli.approvals import ApprovalRequest, parse_approval, parse_payload
from pyadk.cli.approvals import answered_text as approval_text
from pyadk.cli.client_requests import (
    ClientRequest,
    client_requests,
    describe_waiting,
    waiting_requests,
)
from pyadk.cli.credentials import answered_text
from pyadk.cli.errors import CliError
from pyadk.cli.input_requests import InputRequest
from pyadk.cli.render import EventRenderer
from pyadk.cli.services import artifact_service_for, memory_service_for, session_service_for
from pyadk.cli.session_files import (
    ReplayFile,
    read_replay_file,
    read_session_file,
    session_file_path,
    write_session_file,
)
from pyadk.flows.tool_auth import ToolAuthError
from pyadk.flows.tool_confirmations import ToolConfirmationError
from pyadk.runners import Runner
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.session import Session
from pyadk.sessions.state import State
from pyadk.workflow._errors import InputAnswerError

EXIT_WORDS = frozenset({"exit", "quit"})
"""Inputs that end an interactive chat (end of input does too)."""

LineReader = Callable[[], Awaitable[str | None]]
"""Returns the next line the user typed, or None at the end of input."""

AnswerReader = Callable[[str, bool], Awaitable[str | None]]
"""``read(prompt, hidden)``: the user's answer to an approval, credential or input request
(read without echo when ``hidden``), or None at the end of input."""


@dataclass
class RunOptions:
    """What `pyadk run` was asked to do."""

    agent_dir: Path
    user_id: str = "test_user"
    session_id: str | None = None
    session_uri: str | None = None
    artifact_uri: str | None = None
    memory_uri: str | None = None
    save_session: bool = False
    resume: Path | None = None
    replay: Path | None = None


class TurnFailedError(Exception):
    """A replayed query ended with an error (already shown to the user)."""


class TurnWaitingError(TurnFailedError):
    """A replayed query ended waiting for the user (an approval, a credential): a
    replay answers no requests, so it stops there."""


class Chat:
    """One agent, one session, and a renderer: runs user turns and prints the events."""

    def __init__(
        self,
        runner: Runner,
        session: Session,
        renderer: EventRenderer,
        streaming: bool = True,
        read_answer: AnswerReader | None = None,
    ) -> None:
        self.runner = runner
        self.session = session
        self.renderer = renderer
        self.read_answer = read_answer
        """Asks the user for approvals, credentials and input (None: they are not asked)."""
        self.pending: list[ClientRequest] = []
        """The requests the last turn ended waiting for, unanswered."""
        mode = StreamingMode.SSE if streaming else StreamingMode.NONE
        self.run_config = RunConfig(streaming_mode=mode)

    async def send(self, text: str) -> bool:
        """Runs one turn; prints its events. False when the turn (or the last answer
        sent after it) ended with an error. A turn that ends waiting for the user (see
        :meth:`answer`) asks at once."""
        ok, requests, _ = await self._run(types.UserContent(text))
        return await self.answer(requests) if requests else ok

    async def answer(self, requests: list[ClientRequest]) -> bool:
        """Asks the user for what ``requests`` wait for (approvals of tool calls,
        credentials) and sends the answers as one message, the next turn, until a turn
        ends waiting for nothing. An answer the run refuses is reported and asked
        again; the end of input (or an empty credential) stops asking and leaves the
        requests unanswered (:attr:`pending`). False when the last turn failed."""
        ok = True
        self.pending = requests
        while requests and self.read_answer is not None:
            answers = await self._ask(requests)
            if answers is None:
                break
            parts, shown = answers
            for line in shown:
                self.renderer.user(line)
            ok, asked, refused = await self._run(types.Content(role="user", parts=parts))
            requests = requests if refused else asked
            self.pending = requests
        return ok

    async def _run(self, message: types.Content) -> tuple[bool, list[ClientRequest], bool]:
        """Runs one turn: whether it succeeded, the requests it ended waiting for, and
        whether it failed on an answer that fits no request (to be asked again)."""
        requests: list[ClientRequest] = []
        self.pending = []
        try:
            async with aclosing(
                self.runner.run_async(
                    user_id=self.session.user_id,
                    session_id=self.session.id,
                    new_message=message,
                    run_config=self.run_config,
                )
            ) as events:
                async for event in events:
                    self.renderer.event(event)
                    if not event.partial:
                        requests += client_requests(event, self.renderer.tools)
        except (ToolAuthError, ToolConfirmationError, InputAnswerError) as error:  # refused
            self.renderer.error(f"{type(error).__name__}: {error}")
            return False, [], True
        except Exception as error:
            self.renderer.error(f"{type(error).__name__}: {error}")
            return False, [], False
        finally:
            self.renderer.end_stream()
        self.pending = requests
        return True, requests, False

    async def _ask(
        self, requests: list[ClientRequest]
    ) -> tuple[list[types.Part], list[str]] | None:
        """The user's answers to ``requests`` and how they are shown (None: not given)."""
        parts: list[types.Part] = []
        shown: list[str] = []
        approvals = [r for r in requests if isinstance(r, ApprovalRequest)]
        for request in requests:
            if isinstance(request, ApprovalRequest):
                position = approvals.index(request) + 1
                approved = await self._approve(request, position, len(approvals))
                if approved is None:
                    calls = "the call waits" if len(requests) == 1 else "the calls wait"
                    waiting = describe_waiting(requests)
                    self.renderer.info(f"No answer (end of input): {calls} for {waiting}.")
                    return None
                parts.append(approved[0])
                shown.append(approved[1])
                continue
            assert self.read_answer is not None
            value = await self.read_answer(request.prompt(), request.hidden)
            if value is None or not value.strip():
                if isinstance(request, InputRequest):
                    self.renderer.info("Input not given: the workflow waits for it.")
                else:
                    self.renderer.info("Credential not given: the tool call waits for it.")
                return None
            parts.append(request.answer(value.strip()))
            if isinstance(request, InputRequest):
                shown.append(value.strip())
            else:
                shown.append(answered_text([request]))
        return parts, shown

    async def _approve(
        self, request: ApprovalRequest, position: int, count: int
    ) -> tuple[types.Part, str] | None:
        """Asks ``Approve? [y/N]`` (and the payload the tool asked for, if any) until
        the answer is valid; None at the end of input."""
        assert self.read_answer is not None
        while True:
            value = await self.read_answer(request.prompt(position, count), False)
            if value is None:
                return None
            try:
                confirmed = parse_approval(value)
            except ValueError as error:
                self.renderer.error(str(error))
                continue
            break
        payload = None
        while confirmed and request.payload is not None:
            value = await self.read_answer(request.payload_prompt(), False)
            if value is None:
                return None
            try:
                payload = parse_payload(value)
            except ValueError as error:
                self.renderer.error(str(error))
                continue
            break
        shown = approval_text(request, confirmed)
        if count > 1:
            shown += f" ({position} of {count})"
        return request.answer(confirmed, payload), shown

    async def interact(self, read_line: LineReader) -> None:
        """Reads lines until ``exit`` or end of input; each non-blank line is a turn."""
        while True:
            line = await read_line()
            if line is None:
                return
            query = line.strip()
            if not query:
                continue
            if query.lower() in EXIT_WORDS:
                return
            await self.send(query)

    async def replay(self, replay: ReplayFile) -> None:
        """Sends each query of ``replay``; TurnFailedError at the first failing one,
        TurnWaitingError at the first one that ends waiting for the user."""
        for query in replay.queries:
            self.renderer.user(query)
            if not await self.send(query):
                raise TurnFailedError(f"query {query!r} failed")
            if self.pending:
                raise TurnWaitingError(
                    f"query {query!r} ended waiting for {describe_waiting(self.pending)}; "
                    "a replay answers no requests (save the session with --save-session "
                    "and answer it with --resume)"
                )


def stdin_reader(console: Console, stream: TextIO) -> LineReader:
    """Reads lines from ``stream``: with a prompt on a terminal, echoed when piped."""
    interactive = stream.isatty()

    async def read_line() -> str | None:
        if interactive:
            try:
                return await asyncio.to_thread(console.input, Text("[user]: ", style="bold green"))
            except EOFError:
                return None
        line = await asyncio.to_thread(stream.readline)
        if not line:
            return None
        text = line.rstrip("\r\n")
        if text.strip() and text.strip().lower() not in EXIT_WORDS:
            console.print(f"[user]: {text}", style="bold green", markup=False)
        return text

    return read_line


def stdin_answer_reader(console: Console, stream: TextIO) -> AnswerReader:
    """Reads answers to requests from ``stream``, a line each: on a terminal a secret is
    typed without echo (getpass); piped input is never echoed."""
    interactive = stream.isatty()

    async def read_answer(prompt: str, hidden: bool) -> str | None:
        label = Text(prompt, style="bold yellow")
        if interactive:
            try:
                if hidden:  # the prompt shows once echo is off: nothing typed is echoed
                    return await asyncio.to_thread(getpass.getpass, prompt)
                return await asyncio.to_thread(console.input, label)
            except EOFError:
                return None
        console.print(label)
        line = await asyncio.to_thread(stream.readline)
        return line.rstrip("\r\n") if line else None

    return read_answer


async def run_chat(
    options: RunOptions,
    console: Console,
    read_line: LineReader | None = None,
    read_answer: AnswerReader | None = None,
) -> None:
    """Runs `pyadk run` with ``options``; errors are raised for the command to report."""
    replay = read_replay_file(options.replay) if options.replay else None
    saved = read_session_file(options.resume) if options.resume else None
    app_name, agent, app = load_app(options.agent_dir)
    session_service = session_service_for(options.session_uri)
    try:
        artifact_service = artifact_service_for(options.artifact_uri, session_service)
        memory_service = memory_service_for(options.memory_uri)
    except CliError:
        await session_service.close()
        raise
    runner = Runner(
        app=app,  # an exported App brings its plugins and compaction
        app_name=app_name,
        agent=None if app is not None else agent,
        session_service=session_service,
        artifact_service=artifact_service,
        memory_service=memory_service,
        credential_service=InMemoryCredentialService(),  # end users' credentials, as the server
    )
    renderer = EventRenderer(console)
    try:
        session = await _open_session(session_service, app_name, options, replay, saved)
        if replay is None:
            read_answer = read_answer or stdin_answer_reader(console, sys.stdin)
        else:
            read_answer = None  # a replay asks nothing: it stops at a request
        chat = Chat(runner, session, renderer, read_answer=read_answer)
        if saved is not None:
            renderer.info(f"Resumed {len(saved.events)} events from {options.resume}.")
            for event in saved.events:
                renderer.event(event)
            waiting = waiting_requests(saved.events, renderer.tools)
            if waiting:  # the saved session's last turn waits: answer it first
                renderer.info(f"The session waits for {describe_waiting(waiting)}.")
                await chat.answer(waiting)
        if replay is not None:
            try:
                await chat.replay(replay)
            finally:
                await _save_if_asked(session_service, session, options, renderer)
            return
        renderer.info(f"Running agent {agent.name} (session {session.id}), type exit to exit.")
        await chat.interact(read_line or stdin_reader(console, sys.stdin))
        await _save_if_asked(session_service, session, options, renderer)
    finally:
        await runner.close()
        await memory_service.close()
        await artifact_service.close()  # before the session service it may share
        await session_service.close()


async def _open_session(
    service: BaseSessionService,
    app_name: str,
    options: RunOptions,
    replay: ReplayFile | None,
    saved: Session | None,
) -> Session:
    """A new session (replay/resume), or the existing one named by ``--session-id``."""
    try:
        return await _new_or_existing_session(service, app_name, options, replay, saved)
    except ValueError as error:  # e.g. the session id exists already
        raise CliError(str(error)) from error


async def _new_or_existing_session(
    service: BaseSessionService,
    app_name: str,
    options: RunOptions,
    replay: ReplayFile | None,
    saved: Session | None,
) -> Session:
    ids: dict[str, Any] = {"app_name": app_name, "user_id": options.user_id}
    if replay is not None:
        return await service.create_session(
            **ids, state=replay.state, session_id=options.session_id
        )
    if saved is not None:
        session = await service.create_session(
            **ids, state=_state_not_from_events(saved), session_id=options.session_id
        )
        for event in saved.events:
            await service.append_event(session, event)
        return session
    if options.session_id:
        existing = await service.get_session(**ids, session_id=options.session_id)
        if existing is not None:
            return existing
    return await service.create_session(**ids, session_id=options.session_id)


def _state_not_from_events(saved: Session) -> dict[str, Any]:
    """The saved state that no event's delta sets (the session's create-time state)."""
    from_events = {key for event in saved.events for key in event.actions.state_delta}
    return {
        key: value
        for key, value in saved.state.items()
        if key not in from_events and not key.startswith(State.TEMP_PREFIX)
    }


async def _save_if_asked(
    service: BaseSessionService, session: Session, options: RunOptions, renderer: EventRenderer
) -> None:
    if not options.save_session:
        return
    stored = await service.get_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    path = write_session_file(stored or session, session_file_path(options.agent_dir, session.id))
    renderer.info(f"Session saved to {path}")
