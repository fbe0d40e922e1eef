"""A ToolNode's tool asks for the end user's credential: the node waits on an
``adk_request_credential`` call, and takes the client's answer when it runs again.

The request is the one an agent's tool call makes (see :mod:`pyadk.flows.tool_auth`):
its arguments name the tool call and hold the ``AuthConfig`` as the client may see it;
the event also keeps the server's copy (an OAuth2 request's PKCE verifier). The answer
is checked against that copy (an OAuth2 answer must carry the request's ``state``) and
kept in ``temp:<credential_key>`` state for the turn, where
``tool_context.get_auth_response`` finds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.auth.auth_handler import TEMP_PREFIX, for_client
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.events.event import Event
from pyadk.utils.ids import new_uuid4
from pyadk.workflow._node_events import NODE_INFO
from pyadk.workflow._node_run import ClientRequest

if TYPE_CHECKING:
    from pyadk.workflow._context import Context

AUTH_PREFIX = "wf_auth:"
"""Starts the id of a tool node's credential request."""


def credential_request(ctx: Context, call_id: str, requested: Any) -> ClientRequest:
    """The request for the credential the tool call ``call_id`` asked for."""
    config = requested
    if not isinstance(config, AuthConfig):
        config = AuthConfig.model_validate(requested)
    request_id = AUTH_PREFIX + new_uuid4()
    arguments = AuthToolArguments(function_call_id=call_id, auth_config=for_client(config))
    call = types.FunctionCall(
        name=REQUEST_EUC_FUNCTION_CALL_NAME,
        id=request_id,
        args=arguments.model_dump(mode="json", by_alias=True, exclude_none=True),
    )
    ic = ctx._invocation_context
    event = Event(
        invocation_id=ic.invocation_id,
        author=ic.agent.name,
        branch=ic.branch,
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={request_id},
        custom_metadata={NODE_INFO: {"path": ctx.node_path}},
    )
    event.actions.requested_auth_configs[call_id] = config  # the server's copy
    return ClientRequest(event)


def store_credentials(ctx: Context) -> None:
    """Keeps the credentials the client answered this node's requests with in
    ``temp:`` state (ToolAuthError for an answer that does not fit its request)."""
    from pyadk.flows.tool_auth import _pinned

    session = ctx._invocation_context.session
    for request_id, answer in ctx.resume_inputs.items():
        if not request_id.startswith(AUTH_PREFIX):
            continue
        response = types.FunctionResponse(
            id=request_id,
            name=REQUEST_EUC_FUNCTION_CALL_NAME,
            response=answer if isinstance(answer, dict) else {"response": answer},
        )
        _, _, _, config, credential = _pinned(session.events, response)
        session.state[TEMP_PREFIX + (config.credential_key or "")] = credential
