"""BaseAgent: name, sub-agent tree, agent callbacks and the run loop every agent shares."""

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any, final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pyadk import types
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.outcome_tracker import OutcomeTracker
from pyadk.errors import AgentTimeoutError, InvocationStop
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.events.outcome import AgentOutcome, OutcomeStatus, outcome_state_key
from pyadk.telemetry import get_tracer
from pyadk.telemetry.spans import trace_agent
from pyadk.utils.attribute_lookup import PlainAttributeLookup
from pyadk.utils.callbacks import as_callback_list, has_listener, plugins_then_callbacks
from pyadk.utils.event_streams import merge_event_streams
from pyadk.utils.fast_models import construct, set_field, validated

logger = logging.getLogger(__name__)

AgentCallback = Callable[..., Any]
"""``(callback_context: CallbackContext) -> types.Content | None``, sync or async."""


class BaseAgent(PlainAttributeLookup, BaseModel):
    """Base of every agent. Subclasses implement :meth:`_run_async_impl`.

    ``before_agent_callback`` and ``after_agent_callback`` take one callable or a list;
    they are called by keyword (``callback_context=``), may be async, and the first
    non-None result wins. Content returned before the agent runs replaces its run.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", defer_build=True)

    name: str
    """Unique name in the agent tree: a Python identifier, not ``user``."""
    description: str = ""
    """What the agent does; other agents read it to decide on a transfer."""
    parent_agent: "BaseAgent | None" = Field(default=None, exclude=True, repr=False)
    """Set automatically when the agent is added as a sub-agent."""
    sub_agents: "list[BaseAgent]" = Field(default_factory=list)
    before_agent_callback: AgentCallback | list[AgentCallback] | None = None
    after_agent_callback: AgentCallback | list[AgentCallback] | None = None
    timeout: float | None = Field(default=None, gt=0)
    """Seconds the agent's run may take; past it the run ends with outcome timed_out
    and AgentTimeoutError."""

    @field_validator("name")
    @classmethod
    def _validate_name(cls, value: str) -> str:
        if not value.isidentifier():
            raise ValueError(
                f"Found invalid agent name: {value!r}. Agent name must be a valid "
                "identifier: a letter or underscore first, then letters, digits or underscores."
            )
        if value == "user":
            raise ValueError("Agent name cannot be 'user': it is reserved for the end user.")
        return value

    def model_post_init(self, __context: Any) -> None:
        seen: set[str] = set()
        for sub in self._children():
            if sub.name in seen:
                raise ValueError(f"Agent {self.name!r} has two sub-agents named {sub.name!r}.")
            seen.add(sub.name)
            if sub.parent_agent is not None and sub.parent_agent is not self:
                raise ValueError(
                    f"Agent {sub.name!r} already has a parent agent, current parent: "
                    f"{sub.parent_agent.name!r}, trying to add: {self.name!r}."
                )
            sub.parent_agent = self

    # -- tree ---------------------------------------------------------------------------
    @property
    def root_agent(self) -> "BaseAgent":
        """The top of this agent's tree."""
        agent = self
        while agent.parent_agent is not None:
            agent = agent.parent_agent
        return agent

    def find_agent(self, name: str) -> "BaseAgent | None":
        """This agent or a descendant called ``name``."""
        return self if self.name == name else self.find_sub_agent(name)

    def find_sub_agent(self, name: str) -> "BaseAgent | None":
        """A descendant called ``name``."""
        for sub in self._children():
            found = sub.find_agent(name)
            if found is not None:
                return found
        return None

    @property
    def canonical_before_agent_callbacks(self) -> list[AgentCallback]:
        """``before_agent_callback`` as a list."""
        return as_callback_list(self.before_agent_callback)

    @property
    def canonical_after_agent_callbacks(self) -> list[AgentCallback]:
        """``after_agent_callback`` as a list."""
        return as_callback_list(self.after_agent_callback)

    # -- running ------------------------------------------------------------------------
    @final
    def run_async(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """Runs the agent: before callbacks, :meth:`_run_async_impl`, after callbacks.

        Every run ends with an outcome event (no content, ``actions.agent_outcome``,
        state key ``outcome:<name>``): success, failure, skipped, escalated, cancelled
        or timed_out. An exception is recorded as a failure and then re-raised; after
        callbacks run in every case but a skip, and see ``callback_context.outcome``.
        """
        return self._traced(self._run_with_outcome(parent_context), parent_context)

    def _traced(
        self, events: AsyncGenerator[Event, None], parent_context: InvocationContext
    ) -> AsyncGenerator[Event, None]:
        """``events`` (one run of this agent) in an ``invoke_agent`` span when tracing."""
        tracer = get_tracer()
        if tracer is None:
            return events
        return trace_agent(events, tracer, self, parent_context)

    async def _run_with_outcome(
        self, parent_context: InvocationContext
    ) -> AsyncGenerator[Event, None]:
        ctx = self._create_invocation_context(parent_context)
        tracker = OutcomeTracker(self.name, self._child_names)
        try:
            event = (
                await self._handle_before_agent_callback(ctx)
                if has_listener(
                    ctx.plugin_manager, "before_agent_callback", self.before_agent_callback
                )
                else None  # no coroutine to make and await: most agents have none
            )
            if event is not None:
                tracker.observe(event)
            if ctx.end_invocation:
                skipped = event is not None and event.content is not None
                outcome = (
                    tracker.skipped("before_agent_callback returned content")
                    if skipped
                    else tracker.result()
                )
                for last in self._with_outcome(ctx, event, outcome):
                    yield last
                return
            if event is not None:
                yield event
            events = self._run_with_timeout(ctx)
            try:
                async for event in events:
                    if not event.partial:  # a chunk's content and actions come again whole
                        tracker.observe(event)
                    yield event
            finally:
                await events.aclose()
        except (asyncio.CancelledError, GeneratorExit):
            await self._finish_interrupted(ctx, tracker.interrupted())
            raise
        except Exception as error:
            plugins = ctx.plugin_manager
            if (
                plugins is not None
                and not isinstance(error, InvocationStop)  # a budget: not the agent's error
                and plugins.has("on_agent_error_callback")
            ):
                await plugins.notify(
                    "on_agent_error_callback",
                    agent=self,
                    callback_context=CallbackContext(ctx),
                    error=error,
                )
            outcome = tracker.errored(error)
            after = await self._handle_after_agent_callback(ctx, outcome)
            for last in self._with_outcome(ctx, after, outcome):
                yield last
            raise
        outcome = tracker.result()
        after = None
        if not ctx.end_invocation:
            after = await self._handle_after_agent_callback(ctx, outcome)
        for last in self._with_outcome(ctx, after, outcome):
            yield last

    def _run_with_timeout(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if self.timeout is None:
            return self._run_async_impl(ctx)
        seconds = self.timeout
        return merge_event_streams(
            [self._run_async_impl(ctx)],
            timeout=seconds,
            timeout_error=lambda: AgentTimeoutError(
                f"Agent {self.name!r} timed out after {seconds:g} s.", agent=self.name
            ),
        )

    def _with_outcome(
        self, ctx: InvocationContext, last: Event | None, outcome: AgentOutcome
    ) -> list[Event]:
        """The run's last events: ``last`` (an event of the agent's own callbacks, or
        None) carrying ``outcome`` when it is recorded, or followed by an outcome event
        when ``last`` is None."""
        if last is None:
            outcome_event = self._outcome_event(ctx, outcome)
            return [] if outcome_event is None else [outcome_event]
        if self._recorded(ctx, outcome):
            actions = last.actions
            set_field(actions, "end_of_agent", True)
            set_field(actions, "agent_outcome", outcome)
            actions.state_delta[outcome_state_key(self.name)] = outcome.to_state()
        return [last]

    def _recorded(self, ctx: InvocationContext, outcome: AgentOutcome) -> bool:
        """Records ``outcome`` in ``ctx``; whether an event must carry it (not an
        unrecorded success)."""
        ctx.record_outcome(outcome)
        if outcome.status is OutcomeStatus.SUCCESS and ctx.run_config.record_outcomes != "all":
            recorded = ctx.session.state.get(outcome_state_key(self.name))
            return recorded is not None and recorded != outcome.to_state()
        return True

    def _outcome_event(self, ctx: InvocationContext, outcome: AgentOutcome) -> Event | None:
        """Records ``outcome``; the event that carries it (None for an unrecorded success).

        A success is recorded anyway when state still holds an earlier, different outcome
        of this agent, so ``state["outcome:<name>"]`` never reports a stale failure."""
        if not self._recorded(ctx, outcome):
            return None
        return construct(
            Event,
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            actions=construct(
                EventActions,
                end_of_agent=True,
                agent_outcome=outcome,
                state_delta={outcome_state_key(self.name): outcome.to_state()},
            ),
        )

    async def _finish_interrupted(self, ctx: InvocationContext, outcome: AgentOutcome) -> None:
        """Records a cancelled (or closed) run: nothing can be yielded any more, so the
        after-callback and outcome events go straight to the session."""
        try:
            after = await self._handle_after_agent_callback(ctx, outcome)
            for event in self._with_outcome(ctx, after, outcome):
                await ctx.session_service.append_event(ctx.session, event)
        except Exception:
            logger.exception("Could not record the outcome of cancelled agent %r", self.name)

    def skip_event(self, parent_context: InvocationContext, reason: str) -> Event | None:
        """Records that this agent was skipped without running; returns the outcome event."""
        ctx = self._create_invocation_context(parent_context)
        outcome = AgentOutcome(agent=self.name, status=OutcomeStatus.SKIPPED, reason=reason)
        return self._outcome_event(ctx, outcome)

    def _child_names(self) -> set[str]:
        return {child.name for child in self._children()}

    def _children(self) -> "list[BaseAgent]":
        """Every agent directly below this one (sub-agents, and e.g. finally agents)."""
        return self.sub_agents

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """The agent's own behaviour; yields the events it produces."""
        raise NotImplementedError(f"_run_async_impl is not implemented for {type(self).__name__}")
        yield  # pragma: no cover

    @final
    def run_live(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """Runs the agent live (see ``Runner.run_live``): before-agent callbacks,
        :meth:`_run_live_impl`, then after-agent callbacks, in an ``invoke_agent`` span
        when tracing. Live runs record no outcome events (as in google-adk)."""
        return self._traced(self._run_live_with_callbacks(parent_context), parent_context)

    async def _run_live_with_callbacks(
        self, parent_context: InvocationContext
    ) -> AsyncGenerator[Event, None]:
        ctx = self._create_invocation_context(parent_context)
        if has_listener(ctx.plugin_manager, "before_agent_callback", self.before_agent_callback):
            event = await self._handle_before_agent_callback(ctx)
            if event is not None:
                yield event
            if ctx.end_invocation:
                return
        async with aclosing(self._run_live_impl(ctx)) as events:
            async for event in events:
                yield event
        if ctx.end_invocation:
            return
        after = await self._handle_after_agent_callback(ctx)
        if after is not None:
            yield after

    async def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """The agent's own live behaviour; by default live mode is refused."""
        raise NotImplementedError(
            f"{type(self).__name__} {self.name!r} cannot run live (Runner.run_live): live "
            "mode runs LlmAgents and SequentialAgents only, as in google-adk."
        )
        yield  # pragma: no cover

    def _create_invocation_context(self, parent_context: InvocationContext) -> InvocationContext:
        return parent_context._for_agent(self)

    async def _handle_before_agent_callback(self, ctx: InvocationContext) -> Event | None:
        """Runs the before callbacks (the caller checked that one listens)."""
        callback_context = CallbackContext(ctx)
        content = await plugins_then_callbacks(
            ctx.plugin_manager,
            "before_agent_callback",
            {"agent": self, "callback_context": callback_context},
            self.before_agent_callback,
            {"callback_context": callback_context},
        )
        if content is not None:
            ctx.end_invocation = True
        return self._callback_event(ctx, content, callback_context.actions)

    async def _handle_after_agent_callback(
        self, ctx: InvocationContext, outcome: AgentOutcome | None = None
    ) -> Event | None:
        if not has_listener(ctx.plugin_manager, "after_agent_callback", self.after_agent_callback):
            return None
        callback_context = CallbackContext(ctx)
        callback_context.outcome = outcome
        content = await plugins_then_callbacks(
            ctx.plugin_manager,
            "after_agent_callback",
            {"agent": self, "callback_context": callback_context},
            self.after_agent_callback,
            {"callback_context": callback_context},
        )
        return self._callback_event(ctx, content, callback_context.actions)

    def _callback_event(
        self, ctx: InvocationContext, content: Any, actions: EventActions
    ) -> Event | None:
        """An event for a callback's content or state change (None when neither)."""
        if content is None and actions.is_empty():
            return None
        if content is not None:
            content = validated(types.Content, content)
            if content.role is None:
                content.role = "model"
        return construct(
            Event,
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=content,
            actions=actions,
        )
