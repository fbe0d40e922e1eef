"""A ToolNode's tool asks for the end user's credential: the node waits on an
``adk_request_credential`` call, and takes the client's answer when it runs again.

The request is the one an agent's tool call makes (see :mod:`pyadk.flows.tool_auth`):
its arguments name the tool call and hold the ``AuthConfig`` as the client may see it;
the event also keeps the server's copy (an OAuth2 request's PKCE verifier). The answer
is checked against that copy (an OAuth2 answer must carry the request's ``state``) and
kept in ``temp:<credential_key>`` state for the turn, where
``tool_context.get_auth_response`` finds it.

The answer is read from the user's message, never from ``ctx.resume_inputs``: the
request is no input request of the node, so its answer is not among the answers a
pause record carries over, and a run that pauses again (the tool then asks for
approval, another node still waits) stores no credential. A later turn asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.auth.auth_handler import TEMP_PREFIX, for_client
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.events.event import Event
from pyadk.utils.ids import new_uuid4
from pyadk.workflow._node_events import NODE_INFO, node_path

if TYPE_CHECKING:
    from pyadk.workflow._context import Context

AUTH_PREFIX = "wf_auth:"
"""Starts the id of a tool node's credential request."""


def credential_request(ctx: Context, call_id: str, requested: Any) -> Event:
    """The request event for the credential the tool call ``call_id`` asked for; the
    node then waits (it must rerun on resume to take the answer)."""
    config = requested
    if not isinstance(config, AuthConfig):
        config = AuthConfig.model_validate(requested)
    return auth_request_event(ctx, config, call_id=call_id)


def auth_request_event(
    ctx: Context, config: AuthConfig, *, call_id: str | None = None, message: str | None = None
) -> Event:
    """The node's ``adk_request_credential`` call for ``config``, on behalf of the tool
    call ``call_id`` (None: the request itself, as google-adk's function nodes ask), the
    server's copy of ``config`` on the event."""
    request_id = AUTH_PREFIX + new_uuid4()
    for_call = call_id or request_id
    arguments = AuthToolArguments(function_call_id=for_call, auth_config=for_client(config))
    args = arguments.model_dump(mode="json", by_alias=True, exclude_none=True)
    if message:
        args["message"] = message
    call = types.FunctionCall(name=REQUEST_EUC_FUNCTION_CALL_NAME, id=request_id, args=args)
    ic = ctx._invocation_context
    event = Event(
        invocation_id=ic.invocation_id,
        author=ic.agent.name,
        branch=ic.branch,
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={request_id},
        custom_metadata={NODE_INFO: {"path": ctx.node_path}},
    )
    event.actions.requested_auth_configs[for_call] = config  # the server's copy
    return event


def store_credentials(ctx: Context) -> None:
    """Keeps the credentials the user's message answers this node's requests with in
    ``temp:`` state (ToolAuthError for an answer that does not fit its request)."""
    from pyadk.flows.client_requests import find_request
    from pyadk.flows.tool_auth import _pinned, _redacted_answer, answers

    ic = ctx._invocation_context
    events = ic.session.events
    for response in answers(ic.user_content):
        if not (response.id or "").startswith(AUTH_PREFIX):
            continue
        found = find_request(events, response.id, REQUEST_EUC_FUNCTION_CALL_NAME)
        if found is None or node_path(events[found[0]]) != ctx.node_path:
            continue  # another node's request
        if _redacted_answer(response.response):  # the stored form: the tool asks again
            continue
        _, _, _, config, credential = _pinned(events, response)
        ic.session.state[TEMP_PREFIX + (config.credential_key or "")] = credential
