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
from pyadk.cli.credentials import CredentialRequest, answered_text, credential_requests
from pyadk.cli.errors import CliError
from pyadk.cli.render import EventRenderer
from pyadk.cli.services import artifact_service_for, session_service_for
from pyadk.cli.session_files import (
    ReplayFile,
    read_replay_file,
    read_session_file,
    session_file_path,
    write_session_file,
)
from pyadk.flows.tool_auth import ToolAuthError
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.runners import Runner
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.session import Session
from pyadk.sessions.state import State

EXIT_WORDS = frozenset({"exit", "quit"})
"""Inputs that end an interactive chat (end of input does too)."""

LineReader = Callable[[], Awaitable[str | None]]
"""Returns the next line the user typed, or None at the end of input."""

AnswerReader = Callable[[str, bool], Awaitable[str | None]]
"""``read(prompt, hidden)``: the user's answer to a credential request (read without
echo when ``hidden``), or None at the end of input."""


@dataclass
class RunOptions:
    """What `pyadk run` was asked to do."""

    agent_dir: Path
    user_id: str = "test_user"
    session_id: str | None = None
    session_uri: str | None = None
    artifact_uri: str | None = None
    save_session: bool = False
    resume: Path | None = None
    replay: Path | None = None


class TurnFailedError(Exception):
    """A replayed query ended with an error (already shown to the user)."""


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
        """Asks the user for the credentials tools request (None: they are not asked)."""
        mode = StreamingMode.SSE if streaming else StreamingMode.NONE
        self.run_config = RunConfig(streaming_mode=mode)

    async def send(self, text: str) -> bool:
        """Runs one turn; prints its events. False when the turn ended with an error.

        A turn that ends asking for credentials (a tool's ``adk_request_credential``)
        asks the user for them and sends the answers as the next turn; an answer the
        run refuses is asked again; an empty answer (or the end of input) skips them.
        """
        ok, requests, _ = await self._run(types.UserContent(text))
        while requests and self.read_answer is not None:
            parts = await self._ask(requests)
            if parts is None:
                self.renderer.info("Credential not given: the tool call waits for it.")
                break
            self.renderer.user(answered_text(requests))
            ok, asked, refused = await self._run(types.Content(role="user", parts=parts))
            requests = requests if refused else asked
        return ok

    async def _run(self, message: types.Content) -> tuple[bool, list[CredentialRequest], bool]:
        """Runs one turn: whether it succeeded, the credential requests it ended with,
        and whether it was refused as an answer that fits no request."""
        requests: list[CredentialRequest] = []
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
                        requests += credential_requests(event, self.renderer.tools)
        except ToolAuthError as error:  # refused before anything was stored
            self.renderer.error(f"{type(error).__name__}: {error}")
            return False, [], True
        except Exception as error:
            self.renderer.error(f"{type(error).__name__}: {error}")
            return False, [], False
        finally:
            self.renderer.end_stream()
        return True, requests, False

    async def _ask(self, requests: list[CredentialRequest]) -> list[types.Part] | None:
        """The user's answers to ``requests`` (None: skipped)."""
        assert self.read_answer is not None
        parts: list[types.Part] = []
        for request in requests:
            value = await self.read_answer(request.prompt(), request.hidden)
            if value is None or not value.strip():
                return None
            parts.append(request.answer(value.strip()))
        return parts

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
        """Sends each query of ``replay``; TurnFailedError at the first failing one."""
        for query in replay.queries:
            self.renderer.user(query)
            if not await self.send(query):
                raise TurnFailedError(f"query {query!r} failed")


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
    """Reads credential answers from ``stream``: on a terminal a secret is typed without
    echo (getpass); piped input is never echoed."""
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
    except CliError:
        await session_service.close()
        raise
    runner = Runner(
        app=app,  # an exported App brings its plugins and compaction
        app_name=app_name,
        agent=None if app is not None else agent,
        session_service=session_service,
        artifact_service=artifact_service,
        memory_service=InMemoryMemoryService(),
        credential_service=InMemoryCredentialService(),  # end users' credentials, as the server
    )
    renderer = EventRenderer(console)
    try:
        session = await _open_session(session_service, app_name, options, replay, saved)
        chat = Chat(
            runner,
            session,
            renderer,
            read_answer=read_answer or stdin_answer_reader(console, sys.stdin),
        )
        if saved is not None:
            renderer.info(f"Resumed {len(saved.events)} events from {options.resume}.")
            for event in saved.events:
                renderer.event(event)
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
