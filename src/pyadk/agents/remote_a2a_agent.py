"""RemoteA2aAgent: an agent whose turns run on a remote A2A agent.

Each run sends the session events the remote has not seen (since this agent's last
relayed answer) as one A2A message, streams the remote's task updates back as events
and records, in every event's ``custom_metadata``, ``a2a:task_id``,
``a2a:context_id``, ``a2a:request`` and ``a2a:response``; the next run continues the
same remote context (and the same task when the remote paused for input). Failures
(an unreachable or invalid card, an HTTP or protocol error, a failed remote task, a
stream cut short) become error events; the run goes on.

Needs the ``a2a`` extra: ``pip install 'pyadk[a2a]'``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pyadk.a2a._sdk import require_a2a_sdk

require_a2a_sdk()

import httpx  # noqa: E402
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory  # noqa: E402
from a2a.client.card_resolver import parse_agent_card  # noqa: E402
from a2a.client.errors import A2AClientError as _SdkClientError  # noqa: E402
from a2a.types import AgentCard, Message, Role, SendMessageRequest  # noqa: E402
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH  # noqa: E402
from pydantic import PrivateAttr  # noqa: E402

from pyadk.a2a.agent._history import (  # noqa: E402
    A2A_METADATA_PREFIX,
    build_message_parts,
    resumable_task_id,
)
from pyadk.a2a.agent._responses import UNFINISHED_STATES, TaskTracker, event_for  # noqa: E402
from pyadk.a2a.converters.part_converter import (  # noqa: E402
    A2APartToGenAIPartConverter,
    GenAIPartToA2APartConverter,
    convert_a2a_part_to_genai_part,
    convert_genai_part_to_a2a_part,
)
from pyadk.a2a.converters.utils import struct_from_dict, to_dict  # noqa: E402
from pyadk.agents.base_agent import BaseAgent  # noqa: E402
from pyadk.agents.invocation_context import InvocationContext  # noqa: E402
from pyadk.events import Event  # noqa: E402
from pyadk.utils.ids import new_uuid4  # noqa: E402

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 600.0
"""Seconds an HTTP call to the remote may take (the client this agent creates)."""

A2A_INITIALIZATION_ERROR = "A2A_INITIALIZATION_ERROR"
A2A_REQUEST_ERROR = "A2A_REQUEST_ERROR"
A2A_STREAM_INCOMPLETE = "A2A_STREAM_INCOMPLETE"

__all__ = [
    "A2A_METADATA_PREFIX",
    "AGENT_CARD_WELL_KNOWN_PATH",
    "DEFAULT_TIMEOUT",
    "A2AClientError",
    "AgentCardResolutionError",
    "RemoteA2aAgent",
]

_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
_BINDINGS = ["JSONRPC", "HTTP+JSON"]


class AgentCardResolutionError(Exception):
    """The agent card could not be fetched, read or accepted."""


class A2AClientError(Exception):
    """An A2A client operation failed."""


def _origin(url: str) -> tuple[str, str, int | None]:
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    port = parsed.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, (parsed.hostname or "").lower(), port


def _check_transport(url: str, what: str) -> None:
    parsed = urlparse(url)
    if parsed.scheme.lower() != "https" and parsed.hostname not in _LOOPBACK_HOSTS:
        raise AgentCardResolutionError(f"{what} must use https, or http on a loopback host: {url}")


class RemoteA2aAgent(BaseAgent):
    """An agent that answers by calling a remote agent over A2A.

    ``agent_card`` is an :class:`a2a.types.AgentCard`, the URL of a card
    (``https://host/.well-known/agent-card.json``; plain http only on a loopback host)
    or the path of a card JSON file. ``description`` defaults to the card's. A card
    fetched from a URL must name RPC endpoints of the same origin.
    """

    _agent_card: AgentCard | None = PrivateAttr(default=None)
    _agent_card_source: str | None = PrivateAttr(default=None)
    _httpx_client: httpx.AsyncClient | None = PrivateAttr(default=None)
    _owns_httpx_client: bool = PrivateAttr(default=False)
    _timeout: float = PrivateAttr(default=DEFAULT_TIMEOUT)
    _client: Client | None = PrivateAttr(default=None)
    _client_loop: asyncio.AbstractEventLoop | None = PrivateAttr(default=None)
    _client_factory: ClientFactory | None = PrivateAttr(default=None)
    _genai_part_converter: GenAIPartToA2APartConverter = PrivateAttr()
    _a2a_part_converter: A2APartToGenAIPartConverter = PrivateAttr()
    _request_meta_provider: Callable[[InvocationContext, Message], dict[str, Any]] | None = (
        PrivateAttr(default=None)
    )
    _full_history_when_stateless: bool = PrivateAttr(default=False)

    def __init__(
        self,
        name: str,
        agent_card: AgentCard | str,
        *,
        description: str = "",
        httpx_client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        genai_part_converter: GenAIPartToA2APartConverter = convert_genai_part_to_a2a_part,
        a2a_part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
        a2a_client_factory: ClientFactory | None = None,
        a2a_request_meta_provider: (
            Callable[[InvocationContext, Message], dict[str, Any]] | None
        ) = None,
        full_history_when_stateless: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, description=description, **kwargs)
        if agent_card is None:
            raise ValueError("agent_card cannot be None")
        if isinstance(agent_card, AgentCard):
            self._agent_card = agent_card
            if not self.description and agent_card.description:
                self.description = agent_card.description
        elif isinstance(agent_card, str):
            if not agent_card.strip():
                raise ValueError("agent_card string cannot be empty")
            self._agent_card_source = agent_card.strip()
        else:
            raise TypeError(
                "agent_card must be an AgentCard, a URL or a file path, "
                f"got {type(agent_card).__name__}"
            )
        factory_config = getattr(a2a_client_factory, "_config", None)
        # a factory's own HTTP client also fetches the card
        self._httpx_client = getattr(factory_config, "httpx_client", None) or httpx_client
        self._timeout = timeout
        self._genai_part_converter = genai_part_converter
        self._a2a_part_converter = a2a_part_converter
        self._client_factory = a2a_client_factory
        self._request_meta_provider = a2a_request_meta_provider
        self._full_history_when_stateless = full_history_when_stateless

    # -- resolution ---------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._httpx_client is None:
            self._httpx_client = httpx.AsyncClient(timeout=httpx.Timeout(self._timeout))
            self._owns_httpx_client = True
        return self._httpx_client

    async def _resolve_agent_card(self) -> AgentCard:
        source = self._agent_card_source
        if source is None:
            raise AgentCardResolutionError("No agent card source was configured.")
        if source.startswith(("http://", "https://")):
            _check_transport(source, "Agent card URL")
            parsed = urlparse(source)
            resolver = A2ACardResolver(
                httpx_client=self._http(), base_url=f"{parsed.scheme}://{parsed.netloc}"
            )
            try:
                return await resolver.get_agent_card(relative_card_path=parsed.path or "/")
            except Exception as error:
                raise AgentCardResolutionError(
                    f"Failed to resolve AgentCard from URL {source}: {error}"
                ) from error
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
            return parse_agent_card(data)
        except Exception as error:
            raise AgentCardResolutionError(
                f"Failed to resolve AgentCard from file {source}: {error}"
            ) from error

    def _check_card(self, card: AgentCard) -> None:
        urls = [interface.url for interface in card.supported_interfaces if interface.url]
        if not urls:
            raise AgentCardResolutionError(f"Agent card {card.name!r} names no RPC URL")
        source = self._agent_card_source
        if not source or not source.startswith(("http://", "https://")):
            return  # a card given in code or read from a file: its target is the caller's
        for url in urls:
            _check_transport(url, "Agent card RPC URL")
            if _origin(url) != _origin(source):
                raise AgentCardResolutionError(
                    "Agent card RPC URL must have the same origin as the location the "
                    f"card was fetched from ({source}): {url}"
                )

    async def _ensure_resolved(self) -> Client:
        loop = asyncio.get_running_loop()
        if self._client is not None and self._client_loop is loop:
            return self._client
        if self._owns_httpx_client and self._client_loop not in (None, loop):
            # an HTTP client belongs to the event loop that made it (Runner.run makes one
            # per call): this loop gets a client of its own
            self._httpx_client = None
            self._owns_httpx_client = False
        card = self._agent_card or await self._resolve_agent_card()
        self._check_card(card)
        if not self.description and card.description:
            self.description = card.description
        factory = self._client_factory or ClientFactory(
            ClientConfig(httpx_client=self._http(), supported_protocol_bindings=list(_BINDINGS))
        )
        self._agent_card = card
        self._client = factory.create(card)
        self._client_loop = loop
        return self._client

    # -- the run ------------------------------------------------------------------------

    def _error_event(
        self, ctx: InvocationContext, code: str, message: str, **metadata: Any
    ) -> Event:
        logger.error("RemoteA2aAgent %s: %s", self.name, message)
        custom = {A2A_METADATA_PREFIX + key: value for key, value in metadata.items()}
        return Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            branch=ctx.branch,
            error_code=code,
            error_message=message,
            custom_metadata=custom or None,
        )

    def _build_request(self, ctx: InvocationContext) -> Message | None:
        events = list(ctx.session.events)
        parts, context_id = build_message_parts(
            events, self.name, self._genai_part_converter, self._full_history_when_stateless
        )
        if not parts:
            return None
        message = Message(message_id=new_uuid4(), role=Role.ROLE_USER, parts=parts)
        if context_id:
            message.context_id = context_id
        task_id = resumable_task_id(events, self.name, context_id)
        if task_id:
            message.task_id = task_id
        return message

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        try:
            client = await self._ensure_resolved()
        except Exception as error:
            yield self._error_event(
                ctx,
                A2A_INITIALIZATION_ERROR,
                f"Failed to initialize remote A2A agent {self.name}: {error}",
            )
            return
        message = self._build_request(ctx)
        if message is None:
            logger.warning("RemoteA2aAgent %s has nothing to send", self.name)
            yield Event(author=self.name, invocation_id=ctx.invocation_id, branch=ctx.branch)
            return
        request = SendMessageRequest(message=message)
        if self._request_meta_provider is not None:
            request.metadata.CopyFrom(struct_from_dict(self._request_meta_provider(ctx, message)))
        sent = to_dict(message)
        tracker = TaskTracker()
        try:
            async for item in client.send_message(request):
                tracker.apply(item)
                event = event_for(item, tracker.task, self.name, ctx, self._a2a_part_converter)
                if event is None:
                    continue
                custom = dict(event.custom_metadata or {})
                if item.WhichOneof("payload") == "message":
                    if item.message.context_id:
                        custom[A2A_METADATA_PREFIX + "context_id"] = item.message.context_id
                    custom[A2A_METADATA_PREFIX + "response"] = to_dict(item.message)
                elif tracker.task is not None:
                    custom[A2A_METADATA_PREFIX + "task_id"] = tracker.task.id
                    if tracker.task.context_id:
                        custom[A2A_METADATA_PREFIX + "context_id"] = tracker.task.context_id
                    custom[A2A_METADATA_PREFIX + "response"] = to_dict(tracker.task)
                custom[A2A_METADATA_PREFIX + "request"] = sent
                event.custom_metadata = custom
                yield event
        except _SdkClientError as error:
            yield self._error_event(
                ctx,
                A2A_REQUEST_ERROR,
                f"A2A request failed: {error}",
                error=f"A2A request failed: {error}",
                status_code=str(getattr(error, "status_code", None)),
                request=sent,
            )
            return
        except Exception as error:
            yield self._error_event(
                ctx,
                A2A_REQUEST_ERROR,
                f"A2A request failed: {error or type(error).__name__}",
                error=f"A2A request failed: {error or type(error).__name__}",
                request=sent,
            )
            return
        task = tracker.task
        if task is not None and task.status.state in UNFINISHED_STATES:
            yield self._error_event(
                ctx,
                A2A_STREAM_INCOMPLETE,
                f"A2A response stream ended before task {task.id} reached a terminal state.",
                request=sent,
            )

    async def cleanup(self) -> None:
        """Closes the HTTP client this agent created (a client passed in stays open)."""
        if self._owns_httpx_client and self._httpx_client is not None:
            await self._httpx_client.aclose()
            self._httpx_client = None
            self._client = None
