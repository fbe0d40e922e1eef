"""InvocationContext: everything one run of an agent tree can reach."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents.budget import check_model_call
from pyadk.agents.run_config import RunConfig
from pyadk.errors import InvocationStop
from pyadk.events.outcome import AgentOutcome, outcome_state_key
from pyadk.utils.ids import new_uuid4

if TYPE_CHECKING:
    from pyadk.agents.active_streaming_tool import ActiveStreamingTool
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.live_request_queue import LiveRequestQueue
    from pyadk.artifacts.base_artifact_service import BaseArtifactService
    from pyadk.events.event import Event
    from pyadk.flows.live_blob_saver import LiveBlobCache
    from pyadk.flows.live_streaming_tools import StreamingCalls
    from pyadk.memory.base_memory_service import BaseMemoryService
    from pyadk.plugins.plugin_manager import PluginManager
    from pyadk.sessions.base_session_service import BaseSessionService
    from pyadk.sessions.session import Session


class LlmCallsLimitExceededError(InvocationStop):
    """The invocation made more model calls than ``RunConfig.max_llm_calls`` allows."""


def new_invocation_context_id() -> str:
    """A fresh invocation id (``e-`` + UUID)."""
    return "e-" + new_uuid4()


class _InvocationCounters:
    """Counters shared by every copy of one invocation's context.

    Plain classes here, not dataclasses: creating these two dataclasses cost about 12M
    instructions at import (see docs/performance.md). Immutable defaults are class
    attributes, so a turn sets only the mutable ones."""

    llm_calls: int = 0
    resumed_escalation: bool = False
    """A finished target that escalated was skipped: the nearest loop must end."""
    recovering: bool = False
    """This invocation resumes after an interruption (not after a client's answer)."""
    paused_requests: list[Event] | None = None
    """Requests of tool calls that paused since the flow last took them (see
    :mod:`pyadk.tools._paused_calls`)."""
    compacting_app: Any = None
    """The App whose token-threshold compaction is checked before each model call."""
    tool_calls: int = 0
    tokens: int = 0
    live_append_lock: asyncio.Lock | None = None
    """Live mode: serialises the session appends of the send and receive sides."""
    live_blob_cache: LiveBlobCache | None = None
    """A live run's audio not yet saved (``save_live_blob``: see
    :mod:`pyadk.flows.live_blob_saver`)."""
    live_sessions: int = 0
    """Live mode: the model sessions started in this invocation (only the first resumes
    the run config's ``session_resumption.handle``)."""
    streaming_calls: StreamingCalls | None = None
    """Live mode: the streaming tool calls running (see
    :mod:`pyadk.flows.live_streaming_tools`)."""

    def __init__(self) -> None:
        self.handled_escalations: set[str] = set()
        self.outcomes: dict[str, AgentOutcome] = {}
        self.waiting: set[str] = set()
        """Agents whose run ended waiting for the client (see :mod:`pyadk.agents.pause`)."""
        self.resume_targets: set[str] = set()
        """The agents this invocation resumes at, until each is reached."""
        self.resume_done: set[str] = set()
        """Resume targets whose run had finished before the invocation was interrupted:
        the workflow resumes after them (see :mod:`pyadk.agents.interrupted`)."""
        self.interrupted_calls: dict[str, Event] = {}
        """Per agent, its model event whose calls got no result before the interruption."""
        self.resume_escalated: set[str] = set()
        """Of ``resume_done``, the agents whose last event escalated (``exit_loop``)."""
        self.loop_rounds: dict[str, int] = {}
        """Rounds completed by each loop now running (see :mod:`pyadk.agents.loop_agent`)."""
        self.credentials: dict[str, Any] = {}
        """Credentials resolved for toolsets in this invocation, by credential key."""
        self.credential_locks: dict[str, asyncio.Lock] = {}
        """One lock per credential key: concurrent calls look for a credential in turn."""
        self.answers_handled: set[str] = set()
        """Agents that took the user's answers to their requests (approvals,
        credentials): their later runs of the turn ignore them."""
        self.started = time.monotonic()
        self.identical_calls: dict[str, int] = {}
        """Calls per tool and arguments, counted when a budget limits repeats."""


class InvocationContext:
    """The state of one invocation (one user turn) as it flows through the agent tree.

    Each agent runs with its own copy (``agent`` and ``branch`` differ); counters such
    as the model-call count are shared by all copies. Arguments are keyword-only.
    """

    def __init__(
        self,
        *,
        session_service: BaseSessionService,
        session: Session,
        agent: BaseAgent,
        invocation_id: str | None = None,
        artifact_service: BaseArtifactService | None = None,
        memory_service: BaseMemoryService | None = None,
        credential_service: Any | None = None,
        plugin_manager: PluginManager | None = None,
        branch: str | None = None,
        user_content: types.Content | None = None,
        end_invocation: bool = False,
        run_config: RunConfig | None = None,
        live_request_queue: LiveRequestQueue | None = None,
        live_session_resumption_handle: str | None = None,
    ) -> None:
        self.session_service = session_service
        self.session = session
        self.agent = agent
        self.invocation_id = invocation_id or new_invocation_context_id()
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.credential_service = credential_service
        self.plugin_manager = plugin_manager
        self.branch = branch
        self.user_content = user_content
        self.end_invocation = end_invocation
        self.run_config = RunConfig() if run_config is None else run_config
        self.live_request_queue = live_request_queue
        """Live mode (``Runner.run_live``): what the client sends to the model."""
        self.live_session_resumption_handle = live_session_resumption_handle
        """Live mode: the latest handle that resumes the agent's model session."""
        self._counters = _InvocationCounters()

    def __repr__(self) -> str:
        return (
            f"InvocationContext(invocation_id={self.invocation_id!r}, "
            f"agent={self.agent.name!r}, branch={self.branch!r}, "
            f"session={self.session.id!r})"
        )

    def model_copy(self, update: dict[str, Any] | None = None) -> InvocationContext:
        """A copy with some fields changed; shares services, session and counters."""
        values = self.__dict__.copy()
        if update:
            if not _FIELD_NAMES.issuperset(update):
                unknown = sorted(set(update) - _FIELD_NAMES)
                raise TypeError(f"InvocationContext has no field {unknown[0]!r}.")
            values.update(update)
        new = object.__new__(InvocationContext)
        new.__dict__ = values
        return new

    def _for_agent(self, agent: BaseAgent) -> InvocationContext:
        """``model_copy(update={"agent": agent})``, without the update's checks: the
        context an agent runs in."""
        values = self.__dict__.copy()
        values["agent"] = agent
        new = object.__new__(InvocationContext)
        new.__dict__ = values
        return new

    def increment_llm_call_count(self) -> None:
        """Counts a model call; raises LlmCallsLimitExceededError past the limit."""
        self._counters.llm_calls += 1
        config = self.run_config
        if config.budget is not None:
            check_model_call(self, config.budget)
        limit = config.max_llm_calls
        if limit > 0 and self._counters.llm_calls > limit:
            raise LlmCallsLimitExceededError(
                f"Max number of LLM calls ({limit}) exceeded in invocation "
                f"{self.invocation_id} (agent {self.agent.name!r}). Raise "
                "RunConfig.max_llm_calls or check the agent for a tool-call loop."
            )

    def is_escalation_handled(self, event: Any) -> bool:
        """True when an inner loop already stopped on this escalating event."""
        return bool(event.id in self._counters.handled_escalations)

    def mark_escalation_handled(self, event: Any) -> None:
        """Records that a loop stopped on this escalating event."""
        self._counters.handled_escalations.add(event.id)

    def record_outcome(self, outcome: AgentOutcome) -> None:
        """Records how an agent run of this invocation ended."""
        self._counters.outcomes[outcome.agent] = outcome

    def outcome_of(self, agent_name: str) -> AgentOutcome | None:
        """How ``agent_name`` last ended: in this invocation, else as stored in state."""
        outcome = self._counters.outcomes.get(agent_name)
        if outcome is not None:
            return outcome
        key = outcome_state_key(agent_name)
        return AgentOutcome.from_state(agent_name, self.session.state.get(key))

    def outcome_in_this_invocation(self, agent_name: str) -> AgentOutcome | None:
        """How ``agent_name`` ended in this invocation (None if it has not run)."""
        return self._counters.outcomes.get(agent_name)

    @property
    def active_streaming_tools(self) -> dict[str, ActiveStreamingTool] | None:
        """Live mode: the streaming tools running now, by name (the latest call of each);
        None before the invocation's first streaming call. A snapshot, read-only."""
        calls = self._counters.streaming_calls
        return None if calls is None else calls.active()

    @property
    def llm_call_count(self) -> int:
        """Model calls made so far in this invocation."""
        return self._counters.llm_calls

    @property
    def app_name(self) -> str:
        """The session's app name."""
        return self.session.app_name

    @property
    def user_id(self) -> str:
        """The session's user id."""
        return self.session.user_id


_init_code = InvocationContext.__init__.__code__
_FIELD_NAMES = frozenset(
    _init_code.co_varnames[
        _init_code.co_argcount : _init_code.co_argcount + _init_code.co_kwonlyargcount
    ]
)
"""What :meth:`InvocationContext.model_copy` may change: the keyword arguments."""
del _init_code
