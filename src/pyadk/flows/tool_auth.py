"""Tool calls that wait for an end user's credential: the ``adk_request_credential``
request that pauses the agent, and the resume that runs the calls again once the
client answers.

A tool asks with ``tool_context.request_credential(auth_config)``; its result is
stored as usual and the step ends with one ``adk_request_credential`` call per
credential (calls needing the same credential share one). The client answers with a
function response of that name and id holding the ``AuthConfig`` it was sent, its
``exchangedAuthCredential`` filled in (the redirect URI an OAuth2 consent ended on, an
API key, a token), or the credential alone. The answer is checked against the request
stored in the session (an OAuth2 answer must carry the request's ``state``; the PKCE
verifier comes from the session, never from the client), kept in ``temp:`` state for
the turn, and the calls that waited for it run again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from pydantic import ValidationError

from pyadk import types
from pyadk.auth.auth_credential import AuthCredential
from pyadk.auth.auth_handler import TEMP_PREFIX, credential_from_value, for_client
from pyadk.auth.auth_schemes import SecuritySchemeType
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME as REQUEST_NAME
from pyadk.events.event import Event
from pyadk.flows.client_requests import answered_after, answers_to, calls_event, find_request
from pyadk.flows.functions import new_function_call_id

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext


class ToolAuthError(ValueError):
    """A client's answer to a credential request this session did not make, or that
    does not fit the request."""


def answers(content: types.Content | None) -> list[types.FunctionResponse]:
    """The answers to ``adk_request_credential`` calls in a user's message."""
    return answers_to(content, REQUEST_NAME)


TOOLSET_AUTH_PREFIX = "_adk_toolset_auth_"
"""The ``functionCallId`` of a toolset's request (google-adk's): no call runs again,
the agent goes on once the credential came."""


def request_event(
    ctx: InvocationContext, requested: dict[str, Any], *, keep: bool = False
) -> Event | None:
    """The event asking the client for the ``requested`` credentials (by the id of the
    call, or toolset, that needs each): one long-running ``adk_request_credential``
    call per credential key. ``keep``: the event also keeps the server's copies of the
    configs (a toolset's request has no call result to keep them in)."""
    parts: list[types.Part] = []
    ids: set[str] = set()
    keys: set[str] = set()
    for call_id, value in requested.items():
        config = _config(value)
        key = config.credential_key or call_id
        if key in keys:
            continue
        keys.add(key)
        request_id = new_function_call_id()
        ids.add(request_id)
        args = AuthToolArguments(function_call_id=call_id, auth_config=for_client(config))
        call = types.FunctionCall(
            name=REQUEST_NAME,
            id=request_id,
            args=args.model_dump(mode="json", by_alias=True, exclude_none=True),
        )
        parts.append(types.Part(function_call=call))
    if not parts:
        return None
    event = Event(
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        branch=ctx.branch,
        content=types.Content(role="model", parts=parts),
        long_running_tool_ids=ids,
    )
    if keep:
        event.actions.requested_auth_configs.update(requested)
    return event


def check_answers(events: list[Event], message: types.Content | None) -> None:
    """Refuses (ToolAuthError) a message with an answer to no credential request of
    the session, or one that does not fit its request: checked before it is stored."""
    for response in answers(message):
        _pinned(events, response)


def resumed_calls(ctx: InvocationContext, answered: list[types.FunctionResponse]) -> Event | None:
    """Keeps the credentials ``answered`` holds for this agent's requests in ``temp:``
    state and returns the calls that waited for them, as an event to run again (empty
    when every one already ran again); None when no answer is to this agent's tool
    calls (a toolset's credential only lets the agent go on)."""
    events = ctx.session.events
    agent_name = ctx.agent.name
    waiting: dict[str, int] = {}  # call id -> index of its request
    mine = False
    for response in answered:
        index, author, arguments, config = _request_of(events, response)
        if author != agent_name:
            continue  # another agent's request: that agent resumes it
        if not _redacted_answer(response.response):  # else a stored answer (a resume
            # after a crash): the calls run again without it and ask anew
            credential = _answered_credential(config, response.response, response.id or "")
            ctx.session.state[TEMP_PREFIX + (config.credential_key or "")] = credential
        if arguments.function_call_id.startswith(TOOLSET_AUTH_PREFIX):
            continue
        mine = True
        for call_id in _calls_needing(events[:index], arguments, config):
            waiting.setdefault(call_id, index)
    if not mine:
        return None
    pending = [i for i, index in waiting.items() if not answered_after(events, index, i)]
    calls = _original_calls(events, agent_name, pending)
    return calls_event(ctx.invocation_id, agent_name, ctx.branch, calls)


_SECRET_FIELDS = frozenset(
    {
        "apiKey",
        "api_key",
        "token",
        "password",
        "accessToken",
        "access_token",
        "refreshToken",
        "refresh_token",
        "idToken",
        "id_token",
        "authCode",
        "auth_code",
        "authResponseUri",
        "auth_response_uri",
        "clientSecret",
        "client_secret",
        "codeVerifier",
        "code_verifier",
    }
)
"""Fields of an answer that carry a secret (or a code that buys one)."""
REDACTED = "(redacted)"


def stored_form(message: types.Content) -> types.Content:
    """``message`` as the session stores it: each answer to a credential request with
    the secrets it carries replaced by ``"(redacted)"`` (the turn uses the original, in
    ``user_content``)."""
    parts = message.parts or []
    if not any(_is_answer(part) for part in parts):
        return message
    kept = [
        part.model_copy(
            update={
                "function_response": part.function_response.model_copy(
                    update={"response": _redacted(part.function_response.response, True)}
                )
            }
        )
        if _is_answer(part) and part.function_response is not None
        else part
        for part in parts
    ]
    return message.model_copy(update={"parts": kept})


def _is_answer(part: types.Part) -> bool:
    response = part.function_response
    return response is not None and response.name == REQUEST_NAME


def _redacted(value: Any, top: bool = False) -> Any:
    if isinstance(value, dict):
        if top and set(value) == {"response"} and not isinstance(value["response"], dict):
            return {"response": REDACTED}  # a bare key or token
        return {
            key: REDACTED if key in _SECRET_FIELDS and item is not None else _redacted(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value


def _redacted_answer(value: Any) -> bool:
    """Whether an answer is the stored form of one (its secrets replaced)."""
    if isinstance(value, dict):
        return any(_redacted_answer(item) for item in value.values())
    if isinstance(value, list):
        return any(_redacted_answer(item) for item in value)
    return value == REDACTED


def _pinned(
    events: list[Event], response: types.FunctionResponse
) -> tuple[int, str, AuthToolArguments, AuthConfig, AuthCredential]:
    """The request ``response`` answers (its index, author, arguments and the server's
    copy of its config) and the credential it carries, checked against the request."""
    index, author, arguments, config = _request_of(events, response)
    credential = _answered_credential(config, response.response, response.id or "")
    return index, author, arguments, config, credential


def _request_of(
    events: list[Event], response: types.FunctionResponse
) -> tuple[int, str, AuthToolArguments, AuthConfig]:
    """The request ``response`` answers: its index, author, arguments and the server's
    copy of its config (ToolAuthError when the session holds no such request)."""
    found = find_request(events, response.id, REQUEST_NAME)
    if found is None:
        raise ToolAuthError(f"No credential request {response.id!r} in this session to answer.")
    index, author, call = found
    try:
        arguments = AuthToolArguments.model_validate(call.args or {})
    except ValidationError:
        raise ToolAuthError(f"Credential request {response.id!r} names no tool call.") from None
    return index, author, arguments, _server_config(events[: index + 1], arguments)


def _server_config(events: list[Event], arguments: AuthToolArguments) -> AuthConfig:
    """The config as the tool call requested it (with what only the server keeps, such
    as the PKCE verifier); the request's arguments when the session lacks it."""
    call_id = arguments.function_call_id
    for event in reversed(events):  # the tool's result, or the request itself (toolsets)
        value = event.actions.requested_auth_configs.get(call_id)
        if value is not None:
            return _config(value)
    return arguments.auth_config


def _answered_credential(config: AuthConfig, answer: Any, request_id: str) -> AuthCredential:
    """The credential in a client's answer, pinned to the request: OAuth2 state checked,
    the PKCE verifier and client fields taken from the request."""
    data = answer
    if isinstance(data, dict) and set(data) == {"response"}:  # a wrapped answer
        data = data["response"]
    if isinstance(data, dict) and ("authScheme" in data or "auth_scheme" in data):
        try:
            credential = AuthConfig.model_validate(data).exchanged_auth_credential
        except ValidationError as error:
            raise ToolAuthError(f"Invalid answer to {request_id!r}: {_first(error)}") from None
    else:
        try:
            credential = credential_from_value(config.auth_scheme, data)
        except (ValueError, ValidationError) as error:
            detail = _first(error) if isinstance(error, ValidationError) else str(error)
            raise ToolAuthError(f"Invalid answer to {request_id!r}: {detail}") from None
    if credential is None:
        raise ToolAuthError(f"The answer to {request_id!r} holds no credential.")
    _check_kind(config, credential, request_id)
    if credential.oauth2 is not None:
        credential = _pinned_oauth2(config, credential, request_id)
    return credential


def _check_kind(config: AuthConfig, credential: AuthCredential, request_id: str) -> None:
    kind = config.auth_scheme.type_
    has = {
        SecuritySchemeType.apiKey: bool(credential.api_key),
        SecuritySchemeType.http: credential.http is not None,
    }.get(kind, credential.oauth2 is not None or credential.http is not None)
    if not has:
        raise ToolAuthError(
            f"The answer to {request_id!r} holds a {credential.auth_type.value} credential "
            f"without what the {kind.value} scheme needs."
        )


def _pinned_oauth2(
    config: AuthConfig, credential: AuthCredential, request_id: str
) -> AuthCredential:
    oauth2 = credential.oauth2
    assert oauth2 is not None
    sent = config.exchanged_auth_credential
    sent_oauth2 = sent.oauth2 if sent is not None else None
    expected = sent_oauth2.state if sent_oauth2 is not None else None
    if expected is not None and not oauth2.access_token:
        returned = _state_in(oauth2.auth_response_uri) or oauth2.state
        if returned != expected:
            raise ToolAuthError(
                f"The answer to {request_id!r} does not carry the state of the request "
                "(a consent started elsewhere, or a forged answer)."
            )
    update: dict[str, Any] = {}
    if sent_oauth2 is not None:
        names = ("client_id", "redirect_uri", "state", "code_challenge_method")
        for name in names:
            if name in type(oauth2).model_fields and getattr(oauth2, name) is None:
                update[name] = getattr(sent_oauth2, name)
        if "code_verifier" in type(oauth2).model_fields:
            update["code_verifier"] = sent_oauth2.code_verifier  # never the client's
    update["client_secret"] = None  # never the client's either
    return credential.model_copy(update={"oauth2": oauth2.model_copy(update=update)})


def _state_in(uri: str | None) -> str | None:
    if not uri:
        return None
    values = parse_qs(urlparse(uri).query).get("state")
    return values[0] if values else None


def _calls_needing(
    events: list[Event], arguments: AuthToolArguments, config: AuthConfig
) -> list[str]:
    """The request's call and the calls of the same response that wait for the same
    credential (they share one request)."""
    call_ids = [arguments.function_call_id]
    for event in reversed(events):
        requested = event.actions.requested_auth_configs
        if arguments.function_call_id in requested:
            call_ids += [
                call_id
                for call_id, value in requested.items()
                if call_id != arguments.function_call_id
                and _config(value).credential_key == config.credential_key
            ]
            break
    return call_ids


def _original_calls(
    events: list[Event], agent_name: str, call_ids: list[str]
) -> list[types.FunctionCall]:
    wanted = set(call_ids)
    calls: dict[str, types.FunctionCall] = {}
    for event in events:
        if event.author != agent_name:
            continue
        for call in event.get_function_calls():
            if call.id in wanted and call.name != REQUEST_NAME:
                calls[call.id] = call
    return [calls[i] for i in call_ids if i in calls]


def _config(value: Any) -> AuthConfig:
    """A stored request: the object itself, or its JSON once a session store
    serialised it."""
    return value if isinstance(value, AuthConfig) else AuthConfig.model_validate(value)


def _first(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
