"""What a function node asks the client before its function runs (google-adk 2.x's
``require_confirmation`` and ``auth_config`` on ``FunctionNode``).

Approval: the node yields the ``RequestInput`` a ToolNode asks with (id
``wf_tool_confirmation:<uuid>``, payload ``tool_name`` and ``args``; the answer a
``ToolConfirmation`` dict) and runs again once the client answers: approved, the
function runs; rejected, the node outputs ``{"error": "This tool call is rejected."}``.

Credential: unless the credential is in state already, the node waits on an
``adk_request_credential`` call (id ``wf_auth:<uuid>``, the ``functionCallId`` of its
arguments the same id), the server's copy of the request kept on the event. The answer
is checked against that copy (before the message is stored) and kept in
``temp:<credential_key>`` state, where ``AuthHandler(auth_config).get_auth_response(
ctx.state)`` finds it when the node runs again. The node reads the answer from the
user's message, not from ``ctx.resume_inputs``: a run that pauses again later must not
write the credential into its pause record (a later turn asks for it again).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from pyadk.auth.auth_handler import TEMP_PREFIX, AuthHandler
from pyadk.auth.auth_schemes import SecuritySchemeType
from pyadk.auth.auth_tool import AuthConfig
from pyadk.events.event import Event
from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._request_input import RequestInput
from pyadk.workflow._tool_node import REJECTED, _ask_confirmation, _confirmation
from pyadk.workflow._tool_node_auth import auth_request_event, store_credentials

if TYPE_CHECKING:
    from pyadk.workflow._context import Context

BINDINGS = ("state", "node_input")
_ANY: TypeAdapter[Any] = TypeAdapter(Any)


def checked_gates(
    node_name: str,
    *,
    auth_config: Any,
    require_confirmation: Any,
    parameter_binding: Any,
    rerun_on_resume: bool,
) -> AuthConfig | None:
    """Checks a function node's gate settings (WorkflowConfigurationError naming the
    node); returns ``auth_config`` as an :class:`AuthConfig` (a dict is validated)."""
    where = f"Function node {node_name!r}"
    if parameter_binding not in BINDINGS:
        raise WorkflowConfigurationError(
            f"{where}: parameter_binding must be 'state' or 'node_input', got "
            f"{parameter_binding!r}."
        )
    if not isinstance(require_confirmation, bool) and not callable(require_confirmation):
        raise WorkflowConfigurationError(
            f"{where}: require_confirmation must be a bool or a callable predicate over the "
            f"node's arguments, got {require_confirmation!r}."
        )
    config = auth_config
    if isinstance(config, Mapping):
        try:
            config = AuthConfig.model_validate(config)
        except ValueError as error:
            raise WorkflowConfigurationError(f"{where}: invalid auth_config: {error}") from None
    if config is not None and not isinstance(config, AuthConfig):
        raise WorkflowConfigurationError(
            f"{where}: auth_config must be an AuthConfig, got {type(config).__name__}."
        )
    for setting, value in (("require_confirmation", require_confirmation), ("auth_config", config)):
        if value is not None and value is not False and not rerun_on_resume:
            raise WorkflowConfigurationError(
                f"{where} with {setting} needs rerun_on_resume=True: the node runs again "
                "once the client answers."
            )
    return config


async def confirmation_gate(
    ctx: Context,
    *,
    node_name: str,
    require_confirmation: bool | Callable[..., Any],
    arguments: dict[str, Any],
    node_input: Any,
) -> RequestInput | dict[str, str] | None:
    """None when the function may run (``ctx.tool_confirmation`` then holds the
    client's approval, if asked); else what the node yields instead: the request for
    approval, or the rejected call's output."""
    confirmation = _confirmation(ctx)
    ctx.tool_confirmation = confirmation
    if confirmation is not None:
        return None if confirmation.confirmed else {"error": REJECTED}
    if not await _needs_approval(ctx, require_confirmation, arguments, node_input):
        return None
    return _ask_confirmation(node_name, {k: _jsonable(v) for k, v in arguments.items()}, "")


async def _needs_approval(
    ctx: Context,
    require_confirmation: bool | Callable[..., Any],
    arguments: dict[str, Any],
    node_input: Any,
) -> bool:
    """``require_confirmation`` itself, or the predicate's answer for these arguments."""
    if not callable(require_confirmation):
        return bool(require_confirmation)
    given = dict(arguments)
    try:
        parameters = inspect.signature(require_confirmation).parameters
    except (TypeError, ValueError):  # no signature to read: the arguments as they are
        parameters = None
    if parameters is not None:
        for name, param in parameters.items():
            if name in given or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if name in ("ctx", "tool_context") or _is_context(param.annotation):
                given[name] = ctx
            elif name == "node_input":
                given[name] = node_input
            elif name in ctx.state:
                given[name] = ctx.state[name]
        if not any(p.kind == p.VAR_KEYWORD for p in parameters.values()):
            given = {k: v for k, v in given.items() if k in parameters}
    verdict = require_confirmation(**given)
    if inspect.isawaitable(verdict):
        verdict = await verdict
    return bool(verdict)


def _is_context(annotation: Any) -> bool:
    from pyadk.workflow._context import Context

    return annotation is Context or annotation == "Context"


def _jsonable(value: Any) -> Any:
    """``value`` as the request's JSON shows it (its text when it has no JSON form)."""
    try:
        return _ANY.dump_python(value, mode="json")
    except Exception:
        return repr(value)


def credential_gate(ctx: Context, auth_config: AuthConfig) -> Event | None:
    """None when the credential is at hand (the client's answer to this node's
    request, now in ``temp:`` state, or a credential state holds already); else the
    request event, after which the node waits."""
    store_credentials(ctx)
    if has_credential(ctx, auth_config):
        return None
    request = AuthHandler(auth_config).generate_auth_request()
    return auth_request_event(ctx, request, message=_message(request))


def has_credential(ctx: Context, auth_config: AuthConfig) -> bool:
    """Whether state holds a credential for ``auth_config`` (``temp:`` or not)."""
    key = auth_config.credential_key or ""
    return any(ctx.state.get(name) not in (None, "") for name in (TEMP_PREFIX + key, key))


def _message(config: AuthConfig) -> str:
    """What the client shows the user."""
    scheme = config.auth_scheme
    if scheme.type_ == SecuritySchemeType.apiKey:
        name = getattr(scheme, "name", None)
        return f"Enter your API key{f' ({name})' if name else ''}."
    if scheme.type_ in (SecuritySchemeType.oauth2, SecuritySchemeType.openIdConnect):
        return "Sign in to grant access."
    return "Enter your credentials."
