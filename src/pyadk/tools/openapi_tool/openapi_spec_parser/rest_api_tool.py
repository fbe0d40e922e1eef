"""RestApiTool: one operation of an OpenAPI spec, called over HTTP with httpx."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes
from pyadk.auth.auth_schemes import OAuth2, OpenIdConnect, OpenIdConnectWithConfig
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.openapi_tool.auth.auth_helpers import (
    AuthScheme,
    as_auth_scheme,
    credential_to_param,
)
from pyadk.tools.openapi_tool.common.common import ApiParameter
from pyadk.tools.openapi_tool.openapi_spec_parser._http_client import (
    HttpClients,
    HttpxClientFactory,
    SslVerify,
    Timeout,
    blocked_reason,
    import_httpx,
)
from pyadk.tools.openapi_tool.openapi_spec_parser._request import RequestBuilder
from pyadk.tools.openapi_tool.openapi_spec_parser._token_recovery import (
    TokenRecovery,
    token_rejected,
)
from pyadk.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import (
    OperationEndpoint,
    ParsedOperation,
)
from pyadk.tools.openapi_tool.openapi_spec_parser.operation_parser import (
    _MAX_TOOL_NAME_LENGTH,
    OperationParser,
)

if TYPE_CHECKING:
    import httpx

    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.auth.credential_manager import CredentialManager
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

PENDING_AUTH_RESPONSE: dict[str, Any] = {
    "pending": True,
    "message": "Needs your authorization to access your data.",
}
"""What a call answers while it waits for the user's consent (google-adk's answer)."""

_REAUTH_DID_NOT_HELP = (
    "The user already authorized this connection again and the API still rejects the "
    "credential, so calling the tool again will not help: tell the user, and suggest "
    "they check the application's access or permission settings."
)
"""Replaces the invitation to retry once a new consent did not fix a 401."""
_SAFE_METHODS = frozenset({"get", "head", "options", "trace"})
_BODY_SNIPPET = 1000
"""Characters of an error response's body the model is shown."""


def snake_to_lower_camel(snake_case_string: str) -> str:
    """``"find_pets"`` -> ``"findPets"``."""
    if "_" not in snake_case_string:
        return snake_case_string
    first, *rest = snake_case_string.split("_")
    return first.lower() + "".join(part.capitalize() for part in rest)


class RestApiTool(BaseTool):
    """Calls one REST operation: the model's arguments become the request's path, query,
    header and cookie parameters and its JSON (or form) body; the credential is attached;
    the answer comes back as a dict (JSON), ``{"text": ...}`` (anything else), or an error
    dict (``error``, ``status: "error"``, ``status_code``) for an HTTP error, a timeout or
    an unreachable server, so the run goes on.

    Made by :class:`OpenAPIToolset`, one per operation; ``auth_scheme`` /
    ``auth_credential`` may be set with :meth:`configure_auth_scheme` /
    :meth:`configure_auth_credential`.

    An OAuth2 / OpenID Connect scheme whose credential holds a client (``OAuth2Auth``
    with ``client_id``, and ``client_secret`` unless public) but no access token gets
    the user's token interactively, as in google-adk: the call asks the client for
    consent (an ``adk_request_credential`` request with an authorization URI pauses the
    agent) and answers ``{"pending": True, "message": ...}``; the client's answer makes
    it run again, the code is traded for a token, and the request carries
    ``Authorization: Bearer``. The token is saved to the Runner's credential service
    (refreshed when it expires) under ``credential_key`` (derived from the scheme and
    the client when None), so the tools of one toolset share one consent. A
    client-credentials flow gets its token without asking anyone.

    When the API answers 401 to such a token (its challenge says ``invalid_token``, or
    there is none), the token is refreshed and the call sent once more; with no refresh
    token, or a failed refresh, it is forgotten and the user asked again (the pending
    answer). When a new consent did not help either, the error tells the model to report
    it to the user. Budgets per credential, in session state, bound this; any other
    status refills them.
    """

    def __init__(
        self,
        name: str,
        description: str,
        endpoint: OperationEndpoint | str,
        operation: dict[str, Any] | str,
        auth_scheme: AuthScheme | dict[str, Any] | None = None,
        auth_credential: AuthCredential | str | None = None,
        should_parse_operation: bool = True,
        ssl_verify: SslVerify = None,
        header_provider: Callable[[ReadonlyContext], dict[str, str]] | None = None,
        httpx_client_factory: HttpxClientFactory | None = None,
        *,
        allow_private_network_access: bool = False,
        timeout: Timeout = None,
        preserve_property_names: bool = False,
        credential_key: str | None = None,
    ) -> None:
        if isinstance(endpoint, str):
            endpoint = OperationEndpoint.model_validate_json(endpoint)
        super().__init__(
            name=name[:_MAX_TOOL_NAME_LENGTH],
            description=description,
            # HTTP's safe methods: a call cut off by a crash may run again on resume
            idempotent=endpoint.method.lower() in _SAFE_METHODS,
        )
        self.endpoint = endpoint
        if isinstance(operation, str):
            operation = json.loads(operation)
        if not isinstance(operation, dict):
            raise TypeError(f"RestApiTool {name!r}: operation must be a dict or its JSON.")
        self.operation: dict[str, Any] = operation
        self.auth_scheme: AuthScheme | None = None
        self.auth_credential: AuthCredential | None = None
        self.credential_key = credential_key
        """Names the user's credential in the credential service (interactive auth)."""
        self.configure_auth_scheme(auth_scheme)
        self.configure_auth_credential(auth_credential)
        self._header_provider = header_provider
        self._allow_private_network_access = allow_private_network_access
        self._default_headers: dict[str, str] = {}
        self._clients = HttpClients(
            timeout=timeout, ssl_verify=ssl_verify, factory=httpx_client_factory
        )
        if should_parse_operation:
            self._operation_parser = OperationParser(
                self.operation,
                preserve_property_names=preserve_property_names,
                where=f"{self.endpoint.method.upper()} {self.endpoint.path}",
            )

    @classmethod
    def from_parsed_operation(
        cls,
        parsed: ParsedOperation,
        ssl_verify: SslVerify = None,
        header_provider: Callable[[ReadonlyContext], dict[str, str]] | None = None,
        httpx_client_factory: HttpxClientFactory | None = None,
        *,
        allow_private_network_access: bool = False,
        timeout: Timeout = None,
        preserve_property_names: bool = False,
    ) -> RestApiTool:
        """The tool of a :class:`ParsedOperation`."""
        return cls(
            name=parsed.name,
            description=parsed.description,
            endpoint=parsed.endpoint,
            operation=parsed.operation,
            auth_scheme=parsed.auth_scheme,
            auth_credential=parsed.auth_credential,
            ssl_verify=ssl_verify,
            header_provider=header_provider,
            httpx_client_factory=httpx_client_factory,
            allow_private_network_access=allow_private_network_access,
            timeout=timeout,
            preserve_property_names=preserve_property_names,
        )

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema=self._operation_parser.get_json_schema(),
        )

    def configure_auth_scheme(self, auth_scheme: AuthScheme | dict[str, Any] | None) -> None:
        """Sets the security scheme (a scheme object or an OpenAPI security scheme dict)."""
        self.auth_scheme = as_auth_scheme(auth_scheme)

    def configure_auth_credential(self, auth_credential: AuthCredential | str | None) -> None:
        """Sets the credential (an :class:`AuthCredential` or its JSON)."""
        if isinstance(auth_credential, str):
            auth_credential = AuthCredential.model_validate_json(auth_credential)
        self.auth_credential = auth_credential

    def configure_credential_key(self, credential_key: str | None = None) -> None:
        """Sets the key of the user's credential (interactive auth and its storage)."""
        self.credential_key = credential_key

    def configure_ssl_verify(self, ssl_verify: SslVerify = None) -> None:
        """Sets TLS verification: a bool, a CA bundle path, or an ``ssl.SSLContext``."""
        self._clients.ssl_verify = ssl_verify

    def set_default_headers(self, headers: dict[str, str]) -> None:
        """Headers sent with every request (a request's own headers win)."""
        self._default_headers = dict(headers)

    async def close(self) -> None:
        """Closes this tool's HTTP client (the toolset's, when shared)."""
        await self._clients.aclose()

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return await self.call(args=args, tool_context=tool_context)

    async def call(
        self, *, args: dict[str, Any], tool_context: ToolContext | None = None
    ) -> dict[str, Any]:
        """Sends the request and returns the answer (see the class docstring).

        While an OAuth2 / OpenID Connect call waits for the user's consent, the answer
        is google-adk's ``{"pending": True, "message": ...}`` and nothing is sent; a
        consent the OAuth2 server refuses comes back as an error dict.

        Raises ``ValueError`` naming the tool when it cannot authenticate (a scheme with
        no credential; an OAuth2 / OpenID Connect credential with neither a token nor a
        client, or needing consent when there is no ``tool_context`` to ask with) or
        has no absolute server URL.
        """
        httpx = import_httpx()
        if not self.endpoint.base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"Tool {self.name!r} has no absolute server URL (servers[0].url is "
                f"{self.endpoint.base_url!r}); pass base_url= to OpenAPIToolset."
            )
        parameters = list(self._operation_parser.get_parameters())
        api_args = dict(args)
        for param in parameters:
            default = param.param_schema.get("default")
            if param.required and param.py_name not in api_args and default is not None:
                api_args[param.py_name] = default
        credential = self.auth_credential
        manager: CredentialManager | None = None
        if _awaits_consent(self.auth_scheme, credential):
            from pyadk.auth.oauth2 import OAuth2Error

            manager = self._credential_manager(tool_context)
            assert tool_context is not None  # checked by _credential_manager
            try:
                credential = await self._consented_credential(manager, tool_context)
            except OAuth2Error as error:
                return self._format_error_response(f"Authorization failed: {error}")
            if credential is None:
                return dict(PENDING_AUTH_RESPONSE)
        auth_param, auth_args = self._auth_param(credential)
        if auth_param is not None and auth_args:
            parameters.insert(0, auth_param)
            api_args.update(auth_args)
        builder = RequestBuilder(
            tool_name=self.name,
            endpoint=self.endpoint,
            parser=self._operation_parser,
            default_headers=self._default_headers,
            extra_headers=self.auth_credential.http.additional_headers
            if self.auth_credential and self.auth_credential.http
            else None,
        )
        try:
            request = builder.build(parameters, api_args)
        except ValueError as error:
            return self._format_error_response(str(error))
        if self._header_provider is not None and tool_context is not None:
            request["headers"].update(self._header_provider(tool_context) or {})
        url = request["url"]
        if not self._allow_private_network_access:
            reason = await blocked_reason(url)
            if reason:
                return self._format_error_response(
                    f"{reason}. Pass allow_private_network_access=True to call local or "
                    "private-network APIs."
                )
        target = f"{request['method'].upper()} {url}"
        try:
            async with self._clients.client() as client:
                response = await client.request(**request)
        except httpx.TimeoutException as error:
            return self._format_error_response(
                f"Request timed out ({type(error).__name__}): {target}"
            )
        except httpx.HTTPError as error:
            return self._format_error_response(f"Request failed: {target}: {error!r}")
        if manager is not None and tool_context is not None and credential is not None:
            recovery = TokenRecovery(manager, tool_context)
            if response.status_code != 401:  # past the authentication gate
                recovery.note_success()
            elif token_rejected(response.status_code, response.headers.get("www-authenticate")):
                with recovery.claim() as claimed:
                    # Unclaimed: another call is recovering this credential, or this
                    # is the retry of a recovered call (which must not recurse).
                    if claimed:
                        return await self._recover(
                            recovery, credential, args, tool_context, response, target
                        )
        if not response.is_success:
            return self._http_error(response, target)
        try:
            data: Any = response.json()
        except ValueError:
            return {"text": response.text}
        return data if isinstance(data, dict) else {"result": data}

    async def _recover(
        self,
        recovery: TokenRecovery,
        rejected: AuthCredential,
        args: dict[str, Any],
        tool_context: ToolContext,
        response: httpx.Response,
        target: str,
    ) -> dict[str, Any]:
        """The answer once the API rejected the user's token (within the recovery's
        claim): the call sent again with a refreshed token, the pending answer after
        asking the user again, or the API's error."""
        outcome = await recovery.recover(rejected)
        if outcome == "retry":
            logger.info("Tool %r: new token after a 401; calling again.", self.name)
            return await self.call(args=args, tool_context=tool_context)
        if outcome == "asked":
            return dict(PENDING_AUTH_RESPONSE)
        if outcome == "exhausted":
            return self._http_error(response, target, _REAUTH_DID_NOT_HELP)
        return self._http_error(response, target)

    def _http_error(
        self, response: httpx.Response, target: str, advice: str | None = None
    ) -> dict[str, Any]:
        """The error result of a response that is not a success (``advice`` replaces
        the usual invitation to retry)."""
        snippet = response.text[:_BODY_SNIPPET]
        detail = f"Status Code: {response.status_code}, {snippet}"
        if advice is None:
            result = self._format_error_response(detail)
        else:
            result = {
                "error": f"Tool {self.name} execution failed. {advice} {detail}",
                "status": "error",
            }
        result["status_code"] = response.status_code
        result["body"] = snippet
        result["message"] = f"HTTP {response.status_code} from {target}: {snippet[:200]}"
        return result

    def _auth_param(
        self, credential: AuthCredential | None
    ) -> tuple[ApiParameter | None, dict[str, Any] | None]:
        scheme = self.auth_scheme
        if scheme is None and credential is None:
            return None, None
        if credential is None:
            kind = scheme.type_.value if scheme is not None else "?"
            if _is_interactive(scheme):
                raise ValueError(self._no_client_message(kind))
            raise ValueError(
                f"Tool {self.name!r} needs a credential for its {kind} security scheme; pass "
                "auth_credential= to OpenAPIToolset (see pyadk.tools.openapi_tool.auth."
                "auth_helpers.token_to_scheme_credential)."
            )
        try:
            param, values = credential_to_param(scheme, credential)
        except ValueError as error:
            raise ValueError(f"Tool {self.name!r}: {error}") from error
        if param is None:  # an OAuth2 / OIDC credential without a token, outside a scheme
            kind = scheme.type_.value if scheme is not None else credential.auth_type.value
            raise ValueError(self._no_client_message(kind))
        return param, values

    def _credential_manager(self, tool_context: ToolContext | None) -> CredentialManager:
        """The manager of the user's OAuth2 / OIDC token (ValueError when the tool has
        no client to ask the user's consent with, or no tool_context to ask in)."""
        from pyadk.auth.auth_tool import AuthConfig
        from pyadk.auth.credential_manager import CredentialManager

        scheme, credential = self.auth_scheme, self.auth_credential
        assert scheme is not None and credential is not None
        kind = scheme.type_.value
        if credential.oauth2 is None or not credential.oauth2.client_id:
            raise ValueError(self._no_client_message(kind))
        if tool_context is None:
            raise ValueError(
                f"Tool {self.name!r} uses the {kind} security scheme, whose token needs the "
                "user's consent: run it through an agent (run_async with its tool_context) "
                "or pass an AuthCredential holding an access token."
            )
        return CredentialManager(
            AuthConfig(
                auth_scheme=scheme,
                raw_auth_credential=credential,
                credential_key=self.credential_key,
            )
        )

    async def _consented_credential(
        self, manager: CredentialManager, tool_context: ToolContext
    ) -> AuthCredential | None:
        """The user's token for the OAuth2 / OIDC scheme (configured client, this turn's
        answer, or the credential service); None after asking the client for consent."""
        from pyadk.auth.oauth2 import OAuth2Error
        from pyadk.tools.base_authenticated_tool import credential_or_request

        try:
            _, found = await credential_or_request(manager, tool_context)
        except OAuth2Error:
            raise
        except ValueError as error:  # a scheme or client that cannot ask for consent
            raise ValueError(f"Tool {self.name!r}: {error}") from error
        return found

    def _no_client_message(self, kind: str) -> str:
        return (
            f"Tool {self.name!r} uses the {kind} security scheme and has neither a token "
            "nor an OAuth2 client to ask the user's consent with. Pass auth_credential="
            f"AuthCredential(auth_type=AuthCredentialTypes.{AuthCredentialTypes.OAUTH2.name}, "
            "oauth2=OAuth2Auth(client_id=..., client_secret=..., redirect_uri=...)) for the "
            "consent flow, or one holding an access token (oauth2.access_token, or an HTTP "
            "bearer credential)."
        )

    def _format_error_response(self, error_message: str) -> dict[str, Any]:
        return {
            "error": (
                f"Tool {self.name} execution failed. Analyze this execution error and your "
                "inputs. Retry with adjustments if applicable. But make sure don't retry "
                f"more than 3 times. Execution Error: {error_message}"
            ),
            "status": "error",
            "message": error_message,
        }

    def __str__(self) -> str:
        return (
            f'RestApiTool(name="{self.name}", description="{self.description}", '
            f'endpoint="{self.endpoint}")'
        )


def _is_interactive(scheme: AuthScheme | None) -> bool:
    return isinstance(scheme, OAuth2 | OpenIdConnect | OpenIdConnectWithConfig)


def _awaits_consent(scheme: AuthScheme | None, credential: AuthCredential | None) -> bool:
    """Whether an OAuth2 / OIDC scheme's credential holds no token to send yet."""
    if not _is_interactive(scheme) or credential is None:
        return False
    if credential.http is not None and credential.http.credentials.token:
        return False
    if credential.oauth2 is None:
        return False
    return not credential.oauth2.access_token


__all__ = ["PENDING_AUTH_RESPONSE", "RestApiTool", "snake_to_lower_camel"]
