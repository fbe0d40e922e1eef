"""ToolCallIntegrityPlugin: an HMAC on every stored function call, checked before runs.

pyadk runs stored function calls again in later turns: a call that was approved, one
that waited for a credential, or calls cut off by an interruption. Whoever can write to
the session store could change such a call's arguments before it runs. This plugin
stamps each function call with an HMAC of the call and where it was made when its event
is emitted, checks every stamp of the session before each run, and lets a tool run only
when its call verifies. Without the secret key, a changed call cannot get a valid stamp.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event
    from pyadk.sessions.session import Session
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

INTERNAL_METADATA_PREFIX = "__adk_internal_"
"""Prefix of the ``custom_metadata`` keys that only the framework writes."""

RESTORED_EVENT_KEY = INTERNAL_METADATA_PREFIX + "restored_event"
"""Marks an event copied into a session from elsewhere: its calls never run."""

_HMAC_META_KEY = INTERNAL_METADATA_PREFIX + "fc_hmac"
"""``custom_metadata`` key holding ``{function_call_id: stamp}``."""

_STAMP_PREFIX = "v1:"


class ToolCallIntegrityError(ValueError):
    """A function call in the session failed its integrity check."""


def _normalize(value: Any) -> Any:
    """Whole floats as ints (some stores keep numbers as doubles), recursively."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _normalize(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize(item) for item in value]
    return value


def _canonical_json(value: Any) -> str:
    return json.dumps(_normalize(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _json_args(args: dict[str, Any] | None) -> dict[str, Any]:
    """``args`` in the JSON form the session stores write (dates, bytes as text)."""
    if not args:
        return {}
    dumped = types.FunctionCall(args=args).model_dump(mode="json", include={"args"})
    return dumped.get("args") or {}


def _payload(session: Session, event: Event, call: types.FunctionCall) -> bytes:
    """What a stamp covers: the session, the event's place and the call itself."""
    return _canonical_json(
        {
            "app_name": session.app_name,
            "user_id": session.user_id,
            "session_id": session.id,
            "invocation_id": event.invocation_id,
            "branch": event.branch,
            "author": event.author,
            "name": call.name,
            "id": call.id,
            "args": _json_args(call.args),
        }
    ).encode()


def _is_restored(event: Event) -> bool:
    return bool((event.custom_metadata or {}).get(RESTORED_EVENT_KEY))


def _stamps(event: Event) -> dict[str, str]:
    """The event's stamps by call id; ToolCallIntegrityError when malformed."""
    stamps = (event.custom_metadata or {}).get(_HMAC_META_KEY)
    if stamps is None:
        return {}
    if not isinstance(stamps, dict) or not all(
        isinstance(key, str) and isinstance(value, str) and value.isascii()
        for key, value in stamps.items()
    ):
        raise ToolCallIntegrityError(f"Event {event.id!r} has a malformed integrity stamp.")
    return stamps


def _model_issued(tool_context: ToolContext) -> bool:
    """False for a tool run as a workflow node (its arguments come from the graph, with
    a fresh call id, not from a stored function call)."""
    from pyadk.agents.llm_agent import LlmAgent

    node = getattr(tool_context, "node", None)
    if node is not None:
        return False
    return isinstance(tool_context.invocation_context.agent, LlmAgent)


class ToolCallIntegrityPlugin(BasePlugin):
    """Stamps function calls with an HMAC and verifies them before runs and tool calls.

    ``on_event_callback`` stores ``"v1:" + HMAC-SHA256(key, call)`` per call id in the
    event's ``custom_metadata["__adk_internal_fc_hmac"]`` (and refuses an event that
    repeats a call id). ``before_run_callback`` checks every stamped call of the session
    and raises :class:`ToolCallIntegrityError` for a wrong, malformed, repeated or
    orphaned stamp. ``before_tool_callback`` lets a tool run only when every stored copy
    of its call verifies and the tool's name and arguments match one; a call without an
    id is refused. Unstamped calls are refused unless ``allow_unstamped_calls`` (then
    logged). Calls of restored events (see :meth:`prepare_restored_event`) never run.

    Register it first: the Runner stops at the first ``on_event_callback`` that returns
    an event. Plugin errors reach the caller as ``RuntimeError`` whose ``__cause__`` is
    the ``ToolCallIntegrityError``.
    """

    def __init__(
        self,
        secret_key: bytes | Sequence[bytes],
        *,
        allow_unstamped_calls: bool = False,
        name: str = "tool_call_integrity",
    ) -> None:
        super().__init__(name)
        keys = [secret_key] if isinstance(secret_key, bytes) else list(secret_key)
        if not keys or not all(isinstance(key, bytes) and key for key in keys):
            raise ValueError("secret_key must be non-empty bytes or a non-empty list of them.")
        self._keys: list[bytes] = keys
        self._allow_unstamped_calls = allow_unstamped_calls

    @staticmethod
    def prepare_restored_event(event: Event) -> Event:
        """A copy of ``event`` for another session: framework metadata dropped, marked
        restored. Its history passes the checks; its calls never run."""
        copy = event.model_copy(deep=True)
        metadata = {
            key: value
            for key, value in (copy.custom_metadata or {}).items()
            if not (isinstance(key, str) and key.startswith(INTERNAL_METADATA_PREFIX))
        }
        metadata[RESTORED_EVENT_KEY] = True
        copy.custom_metadata = metadata
        return copy

    def _sign(self, payload: bytes) -> str:
        return _STAMP_PREFIX + hmac.new(self._keys[0], payload, hashlib.sha256).hexdigest()

    def _verify(self, payload: bytes, stamp: str) -> bool:
        if not stamp.startswith(_STAMP_PREFIX):
            return False
        digest = stamp[len(_STAMP_PREFIX) :]
        return any(
            hmac.compare_digest(hmac.new(key, payload, hashlib.sha256).hexdigest(), digest)
            for key in self._keys
        )

    def _unstamped(self, name: str | None, call_id: str | None) -> None:
        if not self._allow_unstamped_calls:
            raise ToolCallIntegrityError(f"{name} call {call_id!r} has no integrity stamp.")
        logger.warning("%s call %r has no integrity stamp.", name, call_id)

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Stamps the event's function calls before it is stored."""
        calls = [call for call in event.get_function_calls() if call.id]
        if not calls:
            return None
        if not event.partial:
            seen: set[str] = set()
            for call in calls:
                assert call.id is not None
                if call.id in seen:
                    raise ToolCallIntegrityError(
                        f"Event {event.id!r} repeats function call id {call.id!r}."
                    )
                seen.add(call.id)
        session = invocation_context.session
        stamps = {call.id: self._sign(_payload(session, event, call)) for call in calls}
        event.custom_metadata = {**(event.custom_metadata or {}), _HMAC_META_KEY: stamps}
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Verifies every stamped call of the session."""
        session = invocation_context.session
        for event in session.events:
            calls = event.get_function_calls()
            if not calls or _is_restored(event):
                continue
            stamps = _stamps(event)
            verified: set[str] = set()
            for call in calls:
                if not call.id:
                    continue  # never runs: before_tool_callback refuses it
                if call.id not in stamps:
                    self._unstamped(call.name, call.id)
                    continue
                if call.id in verified:
                    raise ToolCallIntegrityError(
                        f"Event {event.id!r} has duplicate function call id {call.id!r}."
                    )
                if not self._verify(_payload(session, event, call), stamps[call.id]):
                    raise ToolCallIntegrityError(
                        f"{call.name} call {call.id!r} does not match its integrity stamp."
                    )
                verified.add(call.id)
            orphans = stamps.keys() - verified
            if orphans:
                raise ToolCallIntegrityError(
                    f"Event {event.id!r} has integrity stamps with no matching call: "
                    f"{sorted(orphans)}."
                )
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Lets the call run only when it matches a verified stored call."""
        if not _model_issued(tool_context):
            return None
        call_id = tool_context.function_call_id
        if not call_id:
            raise ToolCallIntegrityError(
                f"{tool.name} call has no id, so its integrity cannot be checked."
            )
        session = tool_context.session
        stored: list[tuple[Event, types.FunctionCall]] = []
        restored = False
        for event in session.events:
            for call in event.get_function_calls():
                if call.id != call_id:
                    continue
                if _is_restored(event):
                    restored = True
                else:
                    stored.append((event, call))
        if not stored:
            if restored:
                raise ToolCallIntegrityError(
                    f"{tool.name} call {call_id!r} comes from restored history and cannot "
                    "be executed."
                )
            self._unstamped(tool.name, call_id)
            return None
        trusted: list[types.FunctionCall] = []
        for event, call in stored:
            stamp = _stamps(event).get(call_id)
            if stamp is None:
                self._unstamped(tool.name, call_id)
            elif not self._verify(_payload(session, event, call), stamp):
                raise ToolCallIntegrityError(
                    f"{tool.name} call {call_id!r} does not match its integrity stamp."
                )
            trusted.append(call)
        executed = _canonical_json(_json_args(tool_args))
        if not any(
            call.name == tool.name and _canonical_json(_json_args(call.args)) == executed
            for call in trusted
        ):
            raise ToolCallIntegrityError(
                f"{tool.name} call {call_id!r} arguments do not match its stored call."
            )
        return None
