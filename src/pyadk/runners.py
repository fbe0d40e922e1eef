"""Runner: runs an agent tree for a user's message in a session."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import warnings
from collections.abc import AsyncGenerator, Generator, Sequence
from contextlib import AbstractAsyncContextManager, aclosing
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents import pause
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.budget import BudgetExceededError, exceeded_event_fields
from pyadk.agents.invocation_context import InvocationContext, new_invocation_context_id
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.run_config import RunConfig
from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.flows.client_requests import answers_a_request
from pyadk.memory.base_memory_service import BaseMemoryService
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.plugins.plugin_manager import PluginManager
from pyadk.sessions._leases import LeasedTurns
from pyadk.sessions.base_session_service import (
    BaseSessionService,
    SessionNotFoundError,
    mark_turn_ending,
)
from pyadk.sessions.errors import StaleSessionError
from pyadk.sessions.in_memory_session_service import InMemorySessionService
from pyadk.sessions.session import Session
from pyadk.telemetry import get_tracer
from pyadk.telemetry.spans import trace_invocation
from pyadk.tools._paused_calls import calling_agent
from pyadk.tools.base_toolset import BaseToolset
from pyadk.utils import attribute_lookup
from pyadk.utils.fast_models import construct, copy_value, validated

if TYPE_CHECKING:
    from pyadk.agents.live_request_queue import LiveRequestQueue
    from pyadk.apps.app import App

logger = logging.getLogger(__name__)

_TURN_ATTEMPTS = 3
"""Loads of the session per turn (at least) when other turns change it before the claim."""


class Runner:
    """Runs ``agent`` for new user messages and persists every event it produces.

    Each non-partial event is appended to the session before it is yielded, so what
    a caller has seen is stored. Plugins run before the agents' own callbacks.

    Give either ``app`` (an :class:`~pyadk.apps.App`: its name, root agent, plugins
    and events compaction; ``app_name`` may override its name) or ``agent`` with
    ``app_name`` (and ``plugins``); :attr:`app` is then an ``App`` of those, made on
    first use.
    """

    def __init__(
        self,
        *,
        app: App | None = None,
        app_name: str | None = None,
        agent: BaseAgent | None = None,
        session_service: BaseSessionService,
        artifact_service: BaseArtifactService | None = None,
        memory_service: BaseMemoryService | None = None,
        credential_service: Any | None = None,
        plugins: Sequence[BasePlugin] | None = None,
        auto_create_session: bool = False,
    ) -> None:
        attribute_lookup.enable()  # the models' fast attribute reads, from the first runner on
        self._app = app
        self._compacts = self._compacts_in_turn = False
        if app is not None:
            if agent is not None:
                raise ValueError(
                    f"Runner got both app={app.name!r} and agent={agent.name!r}: pass one; "
                    "the app's root_agent is the agent it runs."
                )
            if plugins is not None:
                raise ValueError(
                    f"Runner got app={app.name!r} and plugins: give the plugins to the App "
                    "(App(plugins=[...]))."
                )
            agent, plugins = app.root_agent, app.plugins
            app_name = app_name or app.name
            config = app.events_compaction_config
            self._compacts = config is not None
            self._compacts_in_turn = config is not None and config.token_threshold is not None
        elif agent is None:
            raise ValueError("Runner needs an app or an agent (with app_name); got neither.")
        elif not app_name:
            raise ValueError("Runner needs app_name when it is given an agent without an app.")
        if not isinstance(agent, BaseAgent):
            raise TypeError(f"Runner agent must be a BaseAgent, got {type(agent).__name__}.")
        self.app_name = app_name
        self.agent = agent
        self.session_service = session_service
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.credential_service = credential_service
        self.plugin_manager = PluginManager(plugins)
        self.auto_create_session = auto_create_session

    @property
    def app(self) -> App:
        """The app this runner runs: the one it was given, or one wrapping ``agent``,
        ``app_name`` and ``plugins`` (made on first use, not checked)."""
        if self._app is None:
            from pyadk.apps.app import App

            self._app = App.model_construct(
                name=self.app_name,
                root_agent=self.agent,
                plugins=list(self.plugin_manager.plugins),
            )
        return self._app

    def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: types.Content | Any | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
        invocation_id: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Appends the user's message to the session, runs the agent, yields events.

        The whole turn holds the session (``session_service.turn``): a turn started while
        another runs on the same session is refused with ``SessionBusyError`` (or waits,
        per the service's ``lease_wait``) before anything is written.

        ``invocation_id`` (without a message) resumes that invocation of the session
        after an interruption (a crash, a killed process): it goes on where its stored
        events end (see :mod:`pyadk.agents.interrupted`).
        """
        resume = invocation_id is not None
        if resume and (new_message is not None or state_delta):
            raise ValueError(
                "run_async got invocation_id and a new message or state_delta: pass "
                "invocation_id alone to resume an interrupted invocation, or a message "
                "to start a turn."
            )
        invocation_id = invocation_id or new_invocation_context_id()
        events = self._run_turn(
            user_id, session_id, invocation_id, new_message, state_delta, run_config, resume
        )
        tracer = get_tracer()
        if tracer is None:
            return events
        return trace_invocation(
            events,
            tracer,
            app_name=self.app_name,
            session_id=session_id,
            invocation_id=invocation_id,
        )

    async def _run_turn(
        self,
        user_id: str,
        session_id: str,
        invocation_id: str,
        new_message: types.Content | Any | None,
        state_delta: dict[str, Any] | None,
        run_config: RunConfig | None,
        resume: bool = False,
    ) -> AsyncGenerator[Event, None]:
        plugins = self.plugin_manager if self.plugin_manager.plugins else None
        config = run_config or construct(RunConfig)  # the defaults need no validation
        message: types.Content | None = None
        if new_message is not None:
            message = validated(types.Content, new_message)
            if not message.parts:
                raise ValueError("new_message has no parts: send at least one text or data part.")
        answering = answers_a_request(message)
        if answering:
            # Approvals, credentials, input: refuse an answer to no request (or one that does not
            # fit it) before anything is written.
            from pyadk.flows.client_answers import check_client_answers

            stored = await self.session_service.get_session(
                app_name=self.app_name, user_id=user_id, session_id=session_id
            )
            if stored is not None:
                check_client_answers(stored.events, message)
        # The user's event goes in with the lease claim (one store round trip less) when
        # nothing may change it first: plugins, input blobs saved as artifacts.
        has_user_event = message is not None or bool(state_delta)
        with_claim = (
            has_user_event
            and plugins is None
            and not config.save_input_blobs_as_artifacts
            and isinstance(self.session_service, LeasedTurns)
        )
        first_event = (
            _user_event(invocation_id, message, state_delta, answering) if with_claim else None
        )
        session, lease = await self._start_turn(user_id, session_id, invocation_id, first_event)
        try:
            ctx = self._new_context(invocation_id, session, config, plugins)
            if self._compacts_in_turn:
                ctx._counters.compacting_app = self._app
            if message is not None:
                if not with_claim:
                    message = await self._on_user_message(ctx, message)
                ctx.user_content = message
            if has_user_event and not with_claim:
                await self.session_service.append_event(
                    session, _user_event(invocation_id, message, state_delta, answering)
                )
            if resume:  # after an interruption: the root goes on where the events end
                finished = _plan_recovery(ctx, self.agent)
            else:
                finished = False
                ctx.agent = self._find_agent_to_run(session, self.agent)
                if ctx.agent is not self.agent and _in_workflow(ctx.agent, self.agent):
                    # The answered agents wait inside a workflow: resume it there.
                    answered = _answered_agents(session, self.agent) or [ctx.agent]
                    pause.set_resume_targets(ctx, {agent.name for agent in answered})
                    ctx.agent = self.agent
            # Without plugins, events are stored here: one generator less per event.
            plain = ctx.plugin_manager is None
            if finished:
                source = _no_events()
            elif plain:
                source = ctx.agent.run_async(ctx)
            else:
                source = self._run_with_plugins(ctx)
            append = self.session_service.append_event
            try:
                try:  # aclosing(), without its three calls a turn
                    async for event in source:
                        if plain and not event.partial:
                            await append(session, event)
                        try:
                            yield event
                        except GeneratorExit:  # the caller stopped reading: the turn ends
                            mark_turn_ending(session)
                            raise
                finally:
                    await source.aclose()
            except BudgetExceededError as exceeded:  # the turn ends with one event
                last = Event(invocation_id=invocation_id, **exceeded_event_fields(exceeded))
                yield await self._persist(ctx, last)
            if self._compacts:  # the App's events compaction, once the turn is stored
                await self._compact(session)
        except BaseException as error:
            if not await lease.__aexit__(type(error), error, error.__traceback__):
                raise
        else:
            await lease.__aexit__(None, None, None)

    def _new_context(
        self,
        invocation_id: str,
        session: Session,
        run_config: RunConfig,
        plugins: PluginManager | None,
    ) -> InvocationContext:
        """The context of an invocation of the root agent on ``session``."""
        return InvocationContext(
            session_service=self.session_service,
            artifact_service=self.artifact_service,
            memory_service=self.memory_service,
            credential_service=self.credential_service,
            plugin_manager=plugins,
            invocation_id=invocation_id,
            agent=self.agent,
            session=session,
            run_config=run_config,
        )

    async def run_live(
        self,
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        live_request_queue: LiveRequestQueue,
        run_config: RunConfig | None = None,
        session: Session | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Runs the agent live (bidirectional): what the client sends through
        ``live_request_queue`` goes to a live model connection while the model's events
        come back, until the client closes the queue or the connection ends.

        Yielded: partial and whole text, transcriptions, ``turn_complete`` and
        ``interrupted`` events, function calls and their results. Stored in the session:
        the user's content sent through the queue, and every yielded event that is not
        partial and carries no inline audio, video or image data. The run holds the
        session as a turn does (``session_service.turn``) until it ends.

        ``RunConfig.save_live_blob``: the run's audio (the user's realtime blobs, the
        model's inline audio) is saved to the artifact service on ``turn_complete`` and
        ``interrupted``, each artifact referenced by a ``file_data`` event, yielded and
        stored (see :mod:`pyadk.flows.live_blob_saver`); without an artifact service
        the run is refused (ValueError).

        ``response_modalities`` defaults to ``[AUDIO]`` and audio transcription is on
        both ways unless set (on a copy of ``run_config``: ``RunConfig.for_live``).
        ``session`` is deprecated (as in google-adk): pass ``user_id`` and ``session_id``.
        """
        config = (run_config or RunConfig()).for_live()
        if config.save_live_blob:  # the audio is saved as artifacts: refused without a service
            from pyadk.flows.live_blob_saver import require_artifact_service

            require_artifact_service(self.artifact_service)
        if live_request_queue is None:
            raise ValueError("live_request_queue is required for run_live.")
        if session is not None:
            warnings.warn(
                "The `session` parameter of run_live is deprecated: pass `user_id` and "
                "`session_id` instead.",
                DeprecationWarning,
                stacklevel=2,
            )
            user_id, session_id = session.user_id, session.id
        elif user_id is None or session_id is None:
            raise ValueError("run_live needs user_id and session_id (or a session).")
        invocation_id = new_invocation_context_id()
        stored, lease = await self._start_turn(user_id, session_id, invocation_id)
        try:
            plugins = self.plugin_manager if self.plugin_manager.plugins else None
            ctx = self._new_context(invocation_id, stored, config, plugins)
            ctx.live_request_queue = live_request_queue
            ctx._counters.live_append_lock = asyncio.Lock()
            ctx.agent = self._find_agent_to_run(stored, self.agent)
            if self.agent.sub_agents and (
                config.input_audio_transcription is None
                or config.output_audio_transcription is None
            ):
                logger.warning(
                    "Audio transcription is off while agent %r has sub-agents: a live "
                    "transfer may lack the conversation so far.",
                    self.agent.name,
                )
            async with aclosing(self._live_events(ctx)) as events:
                async for event in events:
                    try:
                        yield event
                    except GeneratorExit:  # the caller stopped reading: the run ends
                        mark_turn_ending(stored)
                        raise
        except BaseException as error:
            if not await lease.__aexit__(type(error), error, error.__traceback__):
                raise
        else:
            await lease.__aexit__(None, None, None)

    async def _live_events(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """The live agent's events, with the plugins' run and event callbacks; each one
        stored when it should be (see :meth:`run_live`)."""
        from pyadk.flows.live_flow import append_live_event, is_live_media_event

        plugins = ctx.plugin_manager
        if plugins is not None:
            content = await plugins.run("before_run_callback", invocation_context=ctx)
            if content is not None:
                event = self._answer_event(ctx, content)
                await append_live_event(ctx, event)
                yield event
                await plugins.run("after_run_callback", invocation_context=ctx)
                return
        async with aclosing(ctx.agent.run_live(ctx)) as events:
            async for event in events:
                if plugins is not None:
                    replaced = await plugins.run(
                        "on_event_callback", invocation_context=ctx, event=event
                    )
                    if replaced is not None:
                        event = replaced
                if not event.partial and not is_live_media_event(event):
                    await append_live_event(ctx, event)
                yield event
        if plugins is not None:
            await plugins.run("after_run_callback", invocation_context=ctx)

    async def _compact(self, session: Session) -> None:
        """Summarises older events as the app's compaction config says (a failing
        summariser is logged; the turn's events are already stored)."""
        from pyadk.apps.compaction import run_compaction

        try:
            await run_compaction(self.app, session, self.session_service)
        except StaleSessionError:
            logger.info("Session %s changed during compaction; summary dropped.", session.id)

    async def _start_turn(
        self,
        user_id: str,
        session_id: str,
        invocation_id: str,
        first_event: Event | None = None,
    ) -> tuple[Session, AbstractAsyncContextManager[Session]]:
        """Loads the session and takes it for this turn: the session, and the entered
        ``turn`` context the caller exits when the turn ends; ``first_event`` is
        appended with the claim (a LeasedTurns service only).

        A session that another turn changed between the load and the claim (the claim
        waited for it, or it ended just then) is loaded again, since nothing was done
        with it yet: at least ``_TURN_ATTEMPTS`` times, and for as long as the service's
        ``lease_wait`` allows."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.session_service.lease_wait
        attempts = 0
        while True:
            session = await self._load_session(user_id, session_id)
            wait = max(0.0, deadline - loop.time())
            try:
                if first_event is None:
                    lease = self.session_service.turn(
                        session, invocation_id=invocation_id, wait=wait
                    )
                else:
                    assert isinstance(self.session_service, LeasedTurns)
                    lease = self.session_service.turn(
                        session, invocation_id=invocation_id, wait=wait, first_event=first_event
                    )
                await lease.__aenter__()
                return session, lease
            except StaleSessionError:
                attempts += 1
                if attempts >= _TURN_ATTEMPTS and loop.time() >= deadline:
                    raise

    async def _load_session(self, user_id: str, session_id: str) -> Session:
        session = await self.session_service._load_session_for_run(
            app_name=self.app_name, user_id=user_id, session_id=session_id
        )
        if session is None and self.auto_create_session:
            await self.session_service.create_session(
                app_name=self.app_name, user_id=user_id, session_id=session_id
            )
            session = await self.session_service._load_session_for_run(
                app_name=self.app_name, user_id=user_id, session_id=session_id
            )
        if session is None:
            raise SessionNotFoundError(
                f"Session not found: {session_id!r} (app {self.app_name!r}, user {user_id!r}). "
                "Create it with session_service.create_session(...) or pass "
                "auto_create_session=True to the Runner."
            )
        return session

    async def _on_user_message(
        self, ctx: InvocationContext, message: types.Content
    ) -> types.Content:
        if ctx.plugin_manager is not None:
            replaced = await ctx.plugin_manager.run(
                "on_user_message_callback", invocation_context=ctx, user_message=message
            )
            if replaced is not None:
                message = types.Content.model_validate(replaced)
        if ctx.run_config.save_input_blobs_as_artifacts:
            message = await self._save_blobs(ctx, message)
        return message

    async def _save_blobs(self, ctx: InvocationContext, message: types.Content) -> types.Content:
        from pyadk.plugins.save_files_as_artifacts_plugin import save_input_blobs

        return await save_input_blobs(ctx, message)

    async def _run_with_plugins(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """The agent's events with the plugins' run and event callbacks, each stored."""
        plugins = ctx.plugin_manager
        assert plugins is not None
        try:
            content = await plugins.run("before_run_callback", invocation_context=ctx)
            if content is not None:
                yield await self._persist(ctx, self._answer_event(ctx, content))
                await plugins.run("after_run_callback", invocation_context=ctx)
                return
            async with aclosing(ctx.agent.run_async(ctx)) as events:
                async for event in events:
                    replaced = await plugins.run(
                        "on_event_callback", invocation_context=ctx, event=event
                    )
                    if replaced is not None:
                        event = replaced
                    yield await self._persist(ctx, event)
            await plugins.run("after_run_callback", invocation_context=ctx)
        except Exception as error:
            if not isinstance(error, BudgetExceededError):  # that one ends the turn cleanly
                await plugins.notify("on_run_error_callback", invocation_context=ctx, error=error)
            raise

    def _answer_event(self, ctx: InvocationContext, content: Any) -> Event:
        """The root agent's event answering with a ``before_run_callback``'s content."""
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.agent.name,
            content=types.Content.model_validate(content),
        )

    async def _persist(self, ctx: InvocationContext, event: Event) -> Event:
        if not event.partial:
            await self.session_service.append_event(ctx.session, event)
        return event

    def _find_agent_to_run(self, session: Session, root_agent: BaseAgent) -> BaseAgent:
        """The agent that should answer: the one whose tool call is being answered, else
        the last agent that spoke if control may stay with it, else the root."""
        answering = _answered_agents(session, root_agent)
        if answering:
            return answering[0]
        events = session.events
        for event in reversed(events):
            if event.author == "user" or event.is_outcome_event():
                continue
            if event.author == root_agent.name:
                return root_agent
            agent = root_agent.find_sub_agent(event.author)
            if agent is None:
                logger.debug("Event author %r is not in the agent tree", event.author)
                continue
            if self._is_transferable_across_agent_tree(agent):
                return agent
        return root_agent

    def _is_transferable_across_agent_tree(self, agent: BaseAgent) -> bool:
        """True when ``agent`` and its ancestors up to the root agent (included) are
        LlmAgents that allow a way back; a workflow agent above it (e.g. a
        SequentialAgent root) makes the next turn start from the root again."""
        current: BaseAgent | None = agent
        while current is not None:
            if not isinstance(current, LlmAgent) or current.disallow_transfer_to_parent:
                return False
            if current is self.agent:
                break
            current = current.parent_agent
        return True

    def run(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: types.Content | Any | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
    ) -> Generator[Event, None, None]:
        """Synchronous ``run_async``: runs the agent in a worker thread, yields events."""
        items: queue.Queue[Any] = queue.Queue()
        done = object()

        async def consume() -> None:
            async with aclosing(
                self.run_async(
                    user_id=user_id,
                    session_id=session_id,
                    new_message=new_message,
                    state_delta=state_delta,
                    run_config=run_config,
                )
            ) as events:
                async for event in events:
                    items.put(event)

        def work() -> None:
            try:
                asyncio.run(consume())
            except BaseException as exc:  # handed to the caller's thread
                items.put(exc)
            finally:
                items.put(done)

        thread = threading.Thread(target=work, name="pyadk-runner", daemon=True)
        thread.start()
        try:
            while (item := items.get()) is not done:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            thread.join(timeout=0.1)

    async def close(self) -> None:
        """Closes every toolset in the agent tree and the plugins."""
        for toolset in _toolsets(self.agent):
            try:
                await asyncio.wait_for(toolset.close(), 10)
            except Exception:
                logger.exception("Toolset %r failed to close", toolset)
        await self.plugin_manager.close()

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _toolsets(agent: BaseAgent, seen: set[int] | None = None) -> list[BaseToolset]:
    """The toolsets of ``agent``'s tree: its children (sub-agents, finally agents) and
    the agents its ``AgentTool``s run, each toolset once."""
    from pyadk.tools.agent_tool import AgentTool  # only on close: not in the import path

    seen = set() if seen is None else seen
    if id(agent) in seen:
        return []
    seen.add(id(agent))
    found: list[BaseToolset] = []
    if isinstance(agent, LlmAgent):
        for tool in agent.tools:
            if isinstance(tool, BaseToolset) and id(tool) not in seen:
                seen.add(id(tool))
                found.append(tool)
            elif isinstance(tool, AgentTool):
                found.extend(_toolsets(tool.agent, seen))
    for child in agent._children():
        found.extend(_toolsets(child, seen))
    return found


class InMemoryRunner(Runner):
    """A Runner with in-memory session, artifact and memory services."""

    def __init__(
        self,
        agent: BaseAgent | None = None,
        *,
        app_name: str | None = None,
        plugins: Sequence[BasePlugin] | None = None,
        app: App | None = None,
    ) -> None:
        if app is None and app_name is None:
            app_name = "InMemoryRunner"
        super().__init__(
            app=app,
            app_name=app_name,
            agent=agent,
            session_service=InMemorySessionService(),
            artifact_service=InMemoryArtifactService(),
            memory_service=InMemoryMemoryService(),
            plugins=plugins,
        )


def _plan_recovery(ctx: InvocationContext, root: BaseAgent) -> bool:
    """Sets ``ctx`` up to resume its interrupted invocation from ``root``; True when
    the invocation had already finished (nothing to run)."""
    from pyadk.agents.interrupted import plan_resume

    plan = plan_resume(ctx.session, ctx.invocation_id, root)
    ctx.user_content = plan.user_content
    ctx.agent = root
    if root.name in plan.done:
        return True
    counters = ctx._counters
    counters.recovering = True
    counters.resume_done = plan.done
    counters.resume_escalated = plan.escalated
    counters.interrupted_calls = plan.interrupted_calls
    pause.set_resume_targets(ctx, plan.targets)
    return False


async def _no_events() -> AsyncGenerator[Event, None]:
    return
    yield  # pragma: no cover


def _answered_agents(session: Session, root: BaseAgent) -> list[BaseAgent]:
    """The agents whose calls the session's last event (the user's message) answers,
    latest call first (none for an ordinary message: one check)."""
    events = session.events
    answered = {r.id for r in events[-1].get_function_responses() if r.id} if events else None
    if not answered:
        return []
    agents: list[BaseAgent] = []
    for event in reversed(events[:-1]):
        if any(c.id in answered for c in event.get_function_calls()):
            agent = root.find_agent(event.author)
            if agent is None:  # asked inside an agent's tool call (a NodeTool's node)
                agent = calling_agent(events, event, root)
            if agent is not None and all(known is not agent for known in agents):
                agents.append(agent)
    return agents


def _in_workflow(agent: BaseAgent, root: BaseAgent) -> bool:
    """True when an agent between ``agent`` and ``root`` (both excluded) or ``root``
    is a workflow agent (not an LlmAgent)."""
    current = agent.parent_agent
    while current is not None:
        if not isinstance(current, LlmAgent):
            return True
        if current is root:
            return False
        current = current.parent_agent
    return False


def _user_event(
    invocation_id: str,
    message: types.Content | None,
    state_delta: dict[str, Any] | None,
    answering: bool = False,
) -> Event:
    """The event of the user's message (role ``user`` when it has none) and state delta.
    ``answering``: the message answers client requests; the credentials it gives are not
    stored (the turn uses them from the message itself)."""
    if answering and message is not None:
        from pyadk.flows.tool_auth import stored_form

        message = stored_form(message)
    if message is not None and message.role is None:
        message = message.model_copy(update={"role": "user"})
    return construct(
        Event,
        invocation_id=invocation_id,
        author="user",
        content=message,
        actions=construct(EventActions, state_delta=copy_value(state_delta or {})),
    )
