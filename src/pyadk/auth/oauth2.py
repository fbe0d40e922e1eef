"""The OAuth2 / OpenID Connect protocol steps behind tools' credentials.

:func:`authorization_request` builds the URL a user opens to consent (with ``state`` and,
for public clients, PKCE); :func:`exchange_code` turns the redirect the browser landed on
into tokens; :func:`refresh_token` and :func:`client_credentials_token` fetch new ones.
Each step returns a new :class:`AuthCredential`; the one passed in is never changed. Token
requests need httpx (``pip install 'pyadk[openapi]'``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import secrets
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from pyadk.auth.auth_credential import AuthCredential, OAuth2Auth

if TYPE_CHECKING:
    import httpx

    from pyadk.auth.auth_schemes import AuthScheme

logger = logging.getLogger(__name__)

_TIMEOUT = 30.0
_MAX_DESCRIPTION = 300
_FLOWS_WITH_TOKEN_URL = ("authorizationCode", "clientCredentials", "password")


class OAuth2Error(ValueError):
    """An OAuth2 server refused a request (or answered one it should not have).

    ``error`` is the OAuth2 error code (``"invalid_grant"``...), ``error_description``
    the server's explanation, ``endpoint`` the URL (without query) that answered and
    ``status_code`` its HTTP status. The message never carries the client's secrets.
    """

    def __init__(
        self,
        message: str,
        *,
        error: str,
        error_description: str | None = None,
        endpoint: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.error = error
        self.error_description = error_description
        self.endpoint = endpoint
        self.status_code = status_code


def authorization_request(scheme: AuthScheme, credential: AuthCredential) -> AuthCredential:
    """A copy of ``credential`` whose ``oauth2.auth_uri`` is the URL the user opens to
    grant access (authorization code flow), with a fresh ``oauth2.state``.

    PKCE (S256) is added when the credential sets ``code_challenge_method`` or has no
    ``client_secret``; its ``code_verifier`` is kept in the copy for :func:`exchange_code`.
    Like google-adk, the URL also asks for ``access_type=offline`` and
    ``prompt=consent`` (or the credential's ``prompt``).

    Raises:
        ValueError: no ``oauth2`` section or ``client_id``, a scheme with no
            authorization endpoint, or a code challenge method other than S256.
    """
    oauth2 = _oauth2_of(credential)
    if not oauth2.client_id:
        raise ValueError("OAuth2 authorization request: the credential has no oauth2.client_id")
    endpoint, scopes = _authorization_endpoint(scheme)

    method = oauth2.code_challenge_method
    if not method and not oauth2.client_secret:
        method = "S256"  # a public client: PKCE protects its code
    if method and method != "S256":
        raise ValueError(
            f"OAuth2 authorization request: code_challenge_method {method!r} is not "
            "supported; use 'S256'"
        )
    verifier = (oauth2.code_verifier or secrets.token_urlsafe(48)) if method else None
    state = secrets.token_urlsafe(32)

    params: dict[str, str] = {"response_type": "code", "client_id": oauth2.client_id}
    if oauth2.redirect_uri:
        params["redirect_uri"] = oauth2.redirect_uri
    if scopes:
        params["scope"] = " ".join(scopes)
    params["state"] = state
    if verifier:
        params["code_challenge"] = _s256(verifier)
        params["code_challenge_method"] = "S256"
    params["access_type"] = "offline"
    params["prompt"] = oauth2.prompt or "consent"
    if oauth2.audience:
        params["audience"] = oauth2.audience
    if oauth2.nonce:
        params["nonce"] = oauth2.nonce

    result = credential.model_copy(deep=True)
    copied = _oauth2_of(result)
    copied.auth_uri = _with_query(endpoint, params)
    copied.state = state
    if verifier:
        copied.code_verifier = verifier
        copied.code_challenge_method = "S256"
    return result


async def exchange_code(
    scheme: AuthScheme,
    credential: AuthCredential,
    *,
    client: httpx.AsyncClient | None = None,
) -> AuthCredential:
    """A copy of ``credential`` holding the tokens its authorization code buys.

    The code comes from ``oauth2.auth_response_uri`` (the redirect the user's browser
    landed on, whose ``state`` must equal ``oauth2.state``) or ``oauth2.auth_code``. A
    credential that already has an ``access_token`` comes back unchanged (as a copy).

    Raises:
        ValueError: no code, a ``state`` mismatch (a possible CSRF), no token endpoint.
        OAuth2Error: the authorization response or the token endpoint reports an error.
    """
    oauth2 = _oauth2_of(credential)
    if oauth2.access_token:
        return credential.model_copy(deep=True)
    code = _authorization_code(oauth2)
    endpoint = _token_endpoint(scheme, _FLOWS_WITH_TOKEN_URL[:1])
    form = {"grant_type": "authorization_code", "code": code}
    if oauth2.redirect_uri:
        form["redirect_uri"] = oauth2.redirect_uri
    if oauth2.code_verifier:
        form["code_verifier"] = oauth2.code_verifier
    tokens = await _token_request(endpoint, oauth2, form, client, secrets_=(code,))
    return _with_tokens(credential, tokens, keep_old=False)


async def refresh_token(
    scheme: AuthScheme,
    credential: AuthCredential,
    *,
    client: httpx.AsyncClient | None = None,
) -> AuthCredential:
    """A copy of ``credential`` with a new access token from its ``refresh_token``
    (kept when the server issues no new one).

    Raises:
        ValueError: no ``refresh_token`` or no token endpoint.
        OAuth2Error: the token endpoint refuses.
    """
    oauth2 = _oauth2_of(credential)
    if not oauth2.refresh_token:
        raise ValueError("OAuth2 refresh: the credential has no oauth2.refresh_token")
    endpoint = _token_endpoint(scheme, _FLOWS_WITH_TOKEN_URL)
    form = {"grant_type": "refresh_token", "refresh_token": oauth2.refresh_token}
    tokens = await _token_request(endpoint, oauth2, form, client)
    return _with_tokens(credential, tokens, keep_old=True)


async def client_credentials_token(
    scheme: AuthScheme,
    credential: AuthCredential,
    *,
    client: httpx.AsyncClient | None = None,
) -> AuthCredential:
    """A copy of ``credential`` with an access token of the client itself (the
    ``client_credentials`` grant: no user involved), for the scheme's scopes.

    Raises:
        ValueError: no ``oauth2`` section or no token endpoint.
        OAuth2Error: the token endpoint refuses.
    """
    oauth2 = _oauth2_of(credential)
    endpoint = _token_endpoint(scheme, ("clientCredentials",))
    form = {"grant_type": "client_credentials"}
    if _is_oidc(scheme):
        scopes = _scopes_of(getattr(scheme, "scopes", None))
    else:
        scopes = _scopes_of(_get(_flow(scheme, "clientCredentials"), "scopes"))
    if scopes:
        form["scope"] = " ".join(scopes)
    if oauth2.audience:
        form["audience"] = oauth2.audience
    tokens = await _token_request(endpoint, oauth2, form, client)
    return _with_tokens(credential, tokens, keep_old=False)


def is_expired(credential: AuthCredential, *, leeway: float = 60.0) -> bool:
    """Whether the credential's access token expires within ``leeway`` seconds (False
    when its expiry is unknown)."""
    oauth2 = credential.oauth2
    if oauth2 is None or oauth2.expires_at is None:
        return False
    return oauth2.expires_at - leeway <= time.time()


# --- the scheme -------------------------------------------------------------------


def _oauth2_of(credential: AuthCredential) -> OAuth2Auth:
    if credential.oauth2 is None:
        raise ValueError(
            f"OAuth2: the {credential.auth_type.value!s} credential has no oauth2 section"
        )
    return credential.oauth2


def _is_oidc(scheme: Any) -> bool:
    return isinstance(getattr(scheme, "token_endpoint", None), str)


def _get(flow: Any, key: str) -> Any:
    """A field of an OpenAPI flow object, given as a dict or as a model."""
    if flow is None:
        return None
    if isinstance(flow, Mapping):
        return flow.get(key)
    return getattr(flow, key, None)


def _flow(scheme: Any, name: str) -> Any:
    return _get(getattr(scheme, "flows", None), name)


def _scopes_of(scopes: Any) -> list[str]:
    if not scopes:
        return []
    if isinstance(scopes, str):
        return scopes.split()
    return [str(scope) for scope in scopes]  # a dict's keys, or a list


def _authorization_endpoint(scheme: Any) -> tuple[str, list[str]]:
    if _is_oidc(scheme):
        endpoint = getattr(scheme, "authorization_endpoint", None)
        if endpoint:
            return str(endpoint), _scopes_of(getattr(scheme, "scopes", None))
    else:
        for name in ("authorizationCode", "implicit"):
            flow = _flow(scheme, name)
            if _get(flow, "authorizationUrl"):
                return str(_get(flow, "authorizationUrl")), _scopes_of(_get(flow, "scopes"))
    raise ValueError(
        f"OAuth2 authorization request: the {type(scheme).__name__} scheme declares no "
        "authorization endpoint (authorization_endpoint, or an authorizationCode or "
        "implicit flow with an authorizationUrl)"
    )


def _token_endpoint(scheme: Any, flows: tuple[str, ...]) -> str:
    if _is_oidc(scheme):
        return str(scheme.token_endpoint)
    for name in flows:
        url = _get(_flow(scheme, name), "tokenUrl")
        if url:
            return str(url)
    raise ValueError(
        f"OAuth2: the {type(scheme).__name__} scheme declares no token endpoint "
        f"(token_endpoint, or a tokenUrl in its {' or '.join(flows)} flow)"
    )


# --- the requests -----------------------------------------------------------------


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _with_query(url: str, params: dict[str, str]) -> str:
    """``url`` with ``params`` added to the query it may already have."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))


def _without_query(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query="", fragment=""))


def _authorization_code(oauth2: OAuth2Auth) -> str:
    """The code of the authorization response, once its ``state`` is checked."""
    uri = oauth2.auth_response_uri
    if not uri:
        if oauth2.auth_code:
            return oauth2.auth_code
        raise ValueError(
            "OAuth2 code exchange: the credential has neither oauth2.auth_response_uri "
            "nor oauth2.auth_code"
        )
    parts = urlsplit(uri)
    params = dict(parse_qsl(parts.query))
    if "code" not in params and "error" not in params:  # response_mode=fragment
        params.update(parse_qsl(parts.fragment))
    if "error" in params:
        description = params.get("error_description")
        raise OAuth2Error(
            f"OAuth2 authorization refused: {params['error']}"
            + (f": {description[:_MAX_DESCRIPTION]}" if description else ""),
            error=params["error"],
            error_description=description,
            endpoint=_without_query(uri),
        )
    if oauth2.state and params.get("state") != oauth2.state:
        raise ValueError(
            "OAuth2 code exchange: the state of the authorization response does not "
            "match the state of the request (a possible CSRF); refusing the code"
        )
    code = params.get("code") or oauth2.auth_code
    if not code:
        raise ValueError("OAuth2 code exchange: the authorization response carries no code")
    return code


def _client_authentication(oauth2: OAuth2Auth, form: dict[str, str]) -> dict[str, str]:
    """Adds the client's credentials to ``form`` or returns them as headers."""
    if not oauth2.client_id:
        raise ValueError("OAuth2 token request: the credential has no oauth2.client_id")
    method = oauth2.token_endpoint_auth_method
    if not oauth2.client_secret:  # a public client ("none")
        form["client_id"] = oauth2.client_id
        return {}
    if method in (None, "client_secret_basic"):  # google-adk's default too
        user = f"{quote(oauth2.client_id, safe='')}:{quote(oauth2.client_secret, safe='')}"
        return {"Authorization": "Basic " + base64.b64encode(user.encode()).decode("ascii")}
    if method == "client_secret_post":
        form["client_id"] = oauth2.client_id
        form["client_secret"] = oauth2.client_secret
        return {}
    raise ValueError(
        f"OAuth2 token request: token_endpoint_auth_method {method!r} is not supported; "
        "use 'client_secret_post' or 'client_secret_basic'"
    )


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError as error:  # pragma: no cover - httpx is in the dev extra
        raise ImportError(
            "OAuth2 token requests need httpx: pip install 'pyadk[openapi]'"
        ) from error
    return httpx


@functools.cache
def _ssl_context() -> Any:
    """httpx's default TLS context, built once (building one costs ~0.1 s)."""
    return _import_httpx().create_ssl_context()


async def _token_request(
    endpoint: str,
    oauth2: OAuth2Auth,
    form: dict[str, str],
    client: httpx.AsyncClient | None,
    *,
    secrets_: tuple[str, ...] = (),
) -> dict[str, Any]:
    """POSTs ``form`` to the token endpoint and returns its token response."""
    httpx = _import_httpx()
    headers = {"Accept": "application/json", **_client_authentication(oauth2, form)}
    where = _without_query(endpoint)
    hidden = (*secrets_, oauth2.client_secret, oauth2.refresh_token, oauth2.code_verifier)

    def fail(error: str, description: str | None, status: int | None) -> OAuth2Error:
        error, description = _masked(error, hidden), description and _masked(description, hidden)
        text = f"OAuth2 token endpoint {where}"
        text += f" answered HTTP {status}" if status is not None else " failed"
        text += f": {error}"
        if description:
            text += f": {description[:_MAX_DESCRIPTION]}"
        return OAuth2Error(
            text, error=error, error_description=description, endpoint=where, status_code=status
        )

    try:
        if client is not None:
            response = await client.post(endpoint, data=form, headers=headers)
        else:
            async with httpx.AsyncClient(timeout=_TIMEOUT, verify=_ssl_context()) as own:
                response = await own.post(endpoint, data=form, headers=headers)
    except httpx.HTTPError as error:
        raise fail("request_failed", f"{type(error).__name__}: {error}", None) from error

    body = _token_response_body(response)
    if response.is_error or body is None or "error" in body:
        if body is not None and body.get("error"):
            raise fail(
                str(body["error"]),
                _str_or_none(body.get("error_description")),
                response.status_code,
            )
        raise fail(
            "invalid_response" if response.is_success else f"http_{response.status_code}",
            None if response.is_error else "the answer is not a JSON token response",
            response.status_code,
        )
    if not body.get("access_token"):
        raise fail("invalid_response", "the answer has no access_token", response.status_code)
    token_type = str(body.get("token_type") or "bearer")
    if token_type.lower() != "bearer":
        logger.warning(
            "OAuth2 token endpoint %s issued a %r token, sent as bearer", where, token_type
        )
    return body


def _masked(text: str, hidden: tuple[str | None, ...]) -> str:
    """``text`` (said by a server) with any of the ``hidden`` secrets it repeats masked."""
    for secret in hidden:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def _token_response_body(response: httpx.Response) -> dict[str, Any] | None:
    """The token response as a dict: JSON, or a form (as some servers still answer)."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        return dict(parse_qsl(response.text))
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value is None or value == "" else int(float(value))
    except (TypeError, ValueError):
        return None


def _with_tokens(
    credential: AuthCredential, tokens: dict[str, Any], *, keep_old: bool
) -> AuthCredential:
    """A copy of ``credential`` holding ``tokens``; with ``keep_old``, the refresh and
    ID tokens the server did not reissue are kept."""
    result = credential.model_copy(deep=True)
    oauth2 = _oauth2_of(result)
    oauth2.access_token = str(tokens["access_token"])
    refresh = _str_or_none(tokens.get("refresh_token"))
    id_token = _str_or_none(tokens.get("id_token"))
    oauth2.refresh_token = refresh or (oauth2.refresh_token if keep_old else None)
    oauth2.id_token = id_token or (oauth2.id_token if keep_old else None)
    expires_in = _int_or_none(tokens.get("expires_in"))
    expires_at = _int_or_none(tokens.get("expires_at"))
    if expires_at is None and expires_in is not None:
        expires_at = int(time.time()) + expires_in
    oauth2.expires_in = expires_in
    oauth2.expires_at = expires_at
    return result


__all__ = [
    "OAuth2Error",
    "authorization_request",
    "client_credentials_token",
    "exchange_code",
    "is_expired",
    "refresh_token",
]
