"""pyadk.auth.oauth2 against a real OAuth2 server on 127.0.0.1 (tests/auth/oauth_server.py):
the consent URL, the browser's redirect, the code exchange, refresh, client credentials."""

from __future__ import annotations

import base64
import hashlib
import socket
import ssl
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from oauth_server import LiveOAuthServer

from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from pyadk.auth.auth_schemes import (
    APIKey,
    OAuth2,
    OAuthFlows,
    OpenIdConnect,
    OpenIdConnectWithConfig,
)
from pyadk.auth.oauth2 import (
    OAuth2Error,
    authorization_request,
    client_credentials_token,
    exchange_code,
    is_expired,
    refresh_token,
)

TLS = ssl.create_default_context()  # built once: httpx builds one per client otherwise
SCOPES = {"read:me": "Read your profile", "offline": "Stay signed in"}


def scheme_for(server: LiveOAuthServer) -> OAuth2:
    return OAuth2(
        flows=OAuthFlows(
            authorizationCode={
                "authorizationUrl": f"{server.url}/authorize",
                "tokenUrl": f"{server.url}/token",
                "scopes": SCOPES,
            },
            clientCredentials={"tokenUrl": f"{server.url}/token", "scopes": {"svc:sync": ""}},
        )
    )


def oidc_for(server: LiveOAuthServer, **extra: object) -> OpenIdConnectWithConfig:
    return OpenIdConnectWithConfig(
        authorization_endpoint=f"{server.url}/authorize?tenant=acme",
        token_endpoint=f"{server.url}/token",
        scopes=["openid", "profile"],
        **extra,  # type: ignore[arg-type]
    )


def credential_for(server: LiveOAuthServer, client_id: str, **fields: object) -> AuthCredential:
    client = server.state.clients[client_id]
    oauth2 = OAuth2Auth(
        client_id=client_id,
        client_secret=client.secret,
        redirect_uri=client.redirect_uris[0],
        **fields,  # type: ignore[arg-type]
    )
    return AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=oauth2)


def query(url: str) -> dict[str, str]:
    """The query of ``url``, each parameter once."""
    params = parse_qs(urlsplit(url).query, keep_blank_values=True, strict_parsing=True)
    assert all(len(values) == 1 for values in params.values()), params
    return {key: values[0] for key, values in params.items()}


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def consent(credential: AuthCredential) -> AuthCredential:
    """What a browser does: open the auth URI, land where the server redirects (302)."""
    assert credential.oauth2 is not None and credential.oauth2.auth_uri
    async with httpx.AsyncClient(follow_redirects=False, verify=TLS) as browser:
        answer = await browser.get(credential.oauth2.auth_uri)
        assert answer.status_code == 302, answer.text
        landing = answer.headers["location"]
        page = await browser.get(landing)  # the app's callback page really exists
        assert page.status_code == 200
    landed = credential.model_copy(deep=True)
    assert landed.oauth2 is not None
    landed.oauth2.auth_response_uri = landing
    return landed


async def call_api(server: LiveOAuthServer, credential: AuthCredential) -> httpx.Response:
    assert credential.oauth2 is not None
    headers = {"Authorization": f"Bearer {credential.oauth2.access_token}"}
    async with httpx.AsyncClient(verify=TLS) as client:
        return await client.get(f"{server.url}/api/me", headers=headers)


# --- the authorization request ----------------------------------------------------


def test_auth_uri_carries_the_request_and_a_fresh_state(oauth_server: LiveOAuthServer) -> None:
    raw = credential_for(oauth_server, "web-app")
    first = authorization_request(scheme_for(oauth_server), raw)
    second = authorization_request(scheme_for(oauth_server), raw)

    assert raw.oauth2 is not None and raw.oauth2.auth_uri is None and raw.oauth2.state is None
    assert first.oauth2 is not None and second.oauth2 is not None
    uri = first.oauth2.auth_uri
    assert uri is not None and uri.startswith(f"{oauth_server.url}/authorize?")
    params = query(uri)
    assert params == {
        "response_type": "code",
        "client_id": "web-app",
        "redirect_uri": f"{oauth_server.url}/callback",
        "scope": "read:me offline",
        "state": first.oauth2.state,
        "access_type": "offline",  # as google-adk asks
        "prompt": "consent",
    }
    assert len(params["state"]) >= 32
    assert first.oauth2.state != second.oauth2.state
    assert first.oauth2.code_verifier is None  # a confidential client: no PKCE unless asked
    assert first.oauth2.client_secret == raw.oauth2.client_secret  # a full copy
    assert "secret" not in uri


def test_auth_uri_of_an_openid_scheme_keeps_its_query(oauth_server: LiveOAuthServer) -> None:
    raw = credential_for(
        oauth_server, "web-app", prompt="select_account", audience="api://x", nonce="n-1"
    )
    credential = authorization_request(oidc_for(oauth_server), raw)
    assert credential.oauth2 is not None and credential.oauth2.auth_uri is not None
    params = query(credential.oauth2.auth_uri)
    assert params["tenant"] == "acme"
    assert params["scope"] == "openid profile"
    assert params["prompt"] == "select_account"
    assert params["audience"] == "api://x"
    assert params["nonce"] == "n-1"
    assert urlsplit(credential.oauth2.auth_uri).path == "/authorize"


def test_implicit_flow_url_and_no_redirect_uri(oauth_server: LiveOAuthServer) -> None:
    scheme = OAuth2(
        flows=OAuthFlows(implicit={"authorizationUrl": "https://id.example/auth", "scopes": []})
    )
    raw = AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2,
        oauth2=OAuth2Auth(client_id="c", client_secret="s"),
    )
    credential = authorization_request(scheme, raw)
    assert credential.oauth2 is not None and credential.oauth2.auth_uri is not None
    params = query(credential.oauth2.auth_uri)
    assert credential.oauth2.auth_uri.startswith("https://id.example/auth?")
    assert "redirect_uri" not in params and "scope" not in params


def test_public_client_gets_pkce(oauth_server: LiveOAuthServer) -> None:
    credential = authorization_request(
        scheme_for(oauth_server), credential_for(oauth_server, "spa")
    )
    assert credential.oauth2 is not None and credential.oauth2.auth_uri is not None
    verifier = credential.oauth2.code_verifier
    assert verifier is not None and 43 <= len(verifier) <= 128
    params = query(credential.oauth2.auth_uri)
    assert params["code_challenge_method"] == "S256"
    assert params["code_challenge"] == s256(verifier)
    assert verifier not in credential.oauth2.auth_uri
    assert credential.oauth2.code_challenge_method == "S256"


def test_pkce_on_request_and_only_s256(oauth_server: LiveOAuthServer) -> None:
    asked = credential_for(oauth_server, "web-app", code_challenge_method="S256")
    credential = authorization_request(scheme_for(oauth_server), asked)
    assert credential.oauth2 is not None and credential.oauth2.auth_uri is not None
    assert credential.oauth2.code_verifier
    assert query(credential.oauth2.auth_uri)["code_challenge"] == s256(
        credential.oauth2.code_verifier
    )

    given = credential_for(oauth_server, "spa", code_verifier="v" * 50)
    kept = authorization_request(scheme_for(oauth_server), given)
    assert kept.oauth2 is not None and kept.oauth2.code_verifier == "v" * 50

    plain = credential_for(oauth_server, "spa", code_challenge_method="plain")
    with pytest.raises(ValueError, match="S256"):
        authorization_request(scheme_for(oauth_server), plain)


def test_authorization_request_errors(oauth_server: LiveOAuthServer) -> None:
    scheme = scheme_for(oauth_server)
    with pytest.raises(ValueError, match="no oauth2 section"):
        authorization_request(scheme, AuthCredential(auth_type=AuthCredentialTypes.OAUTH2))
    no_client = AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth())
    with pytest.raises(ValueError, match="client_id"):
        authorization_request(scheme, no_client)
    good = credential_for(oauth_server, "web-app")
    machine_only = OAuth2(flows=OAuthFlows(clientCredentials={"tokenUrl": "https://x/token"}))
    discovery_only = OpenIdConnect(openIdConnectUrl="https://id.example/.well-known/x")
    api_key = APIKey(**{"in": "header", "name": "X-Key"})  # type: ignore[arg-type]
    for bad in (machine_only, discovery_only, api_key):
        with pytest.raises(ValueError, match="no authorization endpoint"):
            authorization_request(bad, good)


# --- the code exchange -------------------------------------------------------------


async def test_full_flow_with_client_secret_post(oauth_server: LiveOAuthServer) -> None:
    scheme = scheme_for(oauth_server)
    raw = credential_for(oauth_server, "web-app", token_endpoint_auth_method="client_secret_post")
    landed = await consent(authorization_request(scheme, raw))
    assert landed.oauth2 is not None and landed.oauth2.auth_response_uri is not None
    assert query(landed.oauth2.auth_response_uri)["state"] == landed.oauth2.state

    before = time.time()
    tokens = await exchange_code(scheme, landed)

    assert landed.oauth2.access_token is None  # the input is left alone
    assert tokens.oauth2 is not None
    assert tokens.oauth2.access_token and tokens.oauth2.access_token.startswith("at-")
    assert tokens.oauth2.refresh_token and tokens.oauth2.id_token
    assert tokens.oauth2.expires_in == 3600
    assert tokens.oauth2.expires_at is not None
    assert before + 3600 - 1 <= tokens.oauth2.expires_at <= time.time() + 3600 + 1
    seen = oauth_server.state.token_requests[-1]
    assert seen["auth"] == "post"
    assert seen["form"]["grant_type"] == "authorization_code"
    assert seen["form"]["redirect_uri"] == f"{oauth_server.url}/callback"
    assert "code_verifier" not in seen["form"]

    answer = await call_api(oauth_server, tokens)
    assert answer.status_code == 200
    assert answer.json() == {"sub": "user-1", "client_id": "web-app", "scope": "read:me offline"}
    assert (await call_api(oauth_server, landed)).status_code == 401


async def test_exchange_with_client_secret_basic(oauth_server: LiveOAuthServer) -> None:
    scheme = oidc_for(oauth_server)
    raw = credential_for(
        oauth_server, "svc:odd id", token_endpoint_auth_method="client_secret_basic"
    )
    landed = await consent(authorization_request(scheme, raw))
    async with httpx.AsyncClient(verify=TLS) as client:
        tokens = await exchange_code(scheme, landed, client=client)
        assert not client.is_closed  # a caller's client is not closed
    seen = oauth_server.state.token_requests[-1]
    assert seen["auth"] == "basic"
    assert "client_secret" not in seen["form"] and "client_id" not in seen["form"]
    assert (await call_api(oauth_server, tokens)).json()["client_id"] == "svc:odd id"


async def test_exchange_for_a_public_client_with_pkce(oauth_server: LiveOAuthServer) -> None:
    scheme = scheme_for(oauth_server)
    landed = await consent(authorization_request(scheme, credential_for(oauth_server, "spa")))
    tokens = await exchange_code(scheme, landed)
    seen = oauth_server.state.token_requests[-1]
    assert seen["auth"] == "none" and seen["form"]["client_id"] == "spa"
    assert landed.oauth2 is not None
    assert seen["form"]["code_verifier"] == landed.oauth2.code_verifier
    assert (await call_api(oauth_server, tokens)).status_code == 200


async def test_wrong_pkce_verifier_is_refused(oauth_server: LiveOAuthServer) -> None:
    scheme = scheme_for(oauth_server)
    landed = await consent(authorization_request(scheme, credential_for(oauth_server, "spa")))
    assert landed.oauth2 is not None
    landed.oauth2.code_verifier = "x" * 64
    with pytest.raises(OAuth2Error, match="invalid_grant") as caught:
        await exchange_code(scheme, landed)
    assert caught.value.error == "invalid_grant" and caught.value.status_code == 400
    assert "x" * 64 not in str(caught.value)


async def test_state_mismatch_is_refused(oauth_server: LiveOAuthServer) -> None:
    scheme = scheme_for(oauth_server)
    landed = await consent(authorization_request(scheme, credential_for(oauth_server, "web-app")))
    assert landed.oauth2 is not None and landed.oauth2.auth_response_uri is not None
    forged = landed.model_copy(deep=True)
    assert forged.oauth2 is not None
    forged.oauth2.state = "another-state"
    with pytest.raises(ValueError, match="CSRF"):
        await exchange_code(scheme, forged)
    stateless = landed.model_copy(deep=True)
    assert stateless.oauth2 is not None and stateless.oauth2.auth_response_uri is not None
    stateless.oauth2.auth_response_uri = stateless.oauth2.auth_response_uri.split("&state=")[0]
    with pytest.raises(ValueError, match="CSRF"):
        await exchange_code(scheme, stateless)
    assert oauth_server.state.token_requests == []  # nothing was sent
    assert (await exchange_code(scheme, landed)).oauth2 is not None  # the real one works


async def test_exchange_of_a_bare_auth_code(oauth_server: LiveOAuthServer) -> None:
    scheme = scheme_for(oauth_server)
    landed = await consent(authorization_request(scheme, credential_for(oauth_server, "web-app")))
    assert landed.oauth2 is not None and landed.oauth2.auth_response_uri is not None
    landed.oauth2.auth_code = query(landed.oauth2.auth_response_uri)["code"]
    landed.oauth2.auth_response_uri = None
    tokens = await exchange_code(scheme, landed)
    assert tokens.oauth2 is not None and tokens.oauth2.access_token

    with pytest.raises(OAuth2Error, match="invalid_grant"):  # a code is good once
        await exchange_code(scheme, landed)
    landed.oauth2.auth_code = None
    with pytest.raises(ValueError, match="auth_response_uri"):
        await exchange_code(scheme, landed)


async def test_a_credential_with_a_token_is_not_exchanged(oauth_server: LiveOAuthServer) -> None:
    held = credential_for(oauth_server, "web-app", access_token="already", auth_code="c")
    result = await exchange_code(scheme_for(oauth_server), held)
    assert result == held and result is not held
    assert result.oauth2 is not held.oauth2
    assert oauth_server.state.token_requests == []


async def test_consent_refused_by_the_user(oauth_server: LiveOAuthServer) -> None:
    oauth_server.state.deny = True
    scheme = scheme_for(oauth_server)
    landed = await consent(authorization_request(scheme, credential_for(oauth_server, "web-app")))
    with pytest.raises(OAuth2Error, match="access_denied: the user said no") as caught:
        await exchange_code(scheme, landed)
    assert caught.value.error == "access_denied"


async def test_token_endpoint_error_names_it_without_the_secret(
    oauth_server: LiveOAuthServer,
) -> None:
    oauth_server.state.echo_secret_in_errors = True
    scheme = scheme_for(oauth_server)
    landed = await consent(authorization_request(scheme, credential_for(oauth_server, "web-app")))
    assert landed.oauth2 is not None
    landed.oauth2.client_secret = "wrong-secret-7d1e"
    with pytest.raises(OAuth2Error) as caught:
        await exchange_code(scheme, landed)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.error, error.status_code) == ("invalid_client", 401)
    assert error.endpoint == f"{oauth_server.url}/token"
    assert f"{oauth_server.url}/token" in str(error) and "invalid_client" in str(error)
    assert "wrong-secret-7d1e" not in str(error)
    assert "wrong-secret-7d1e" not in (error.error_description or "")
    assert "***" in str(error)  # the server did echo it: it was masked
    code = query(landed.oauth2.auth_response_uri or "")["code"]
    assert code not in str(error)


async def test_answers_that_are_not_token_responses(oauth_server: LiveOAuthServer) -> None:
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    credential = credential_for(oauth_server, "web-app", auth_code="c")
    nowhere = OpenIdConnectWithConfig(
        authorization_endpoint="http://127.0.0.1/a", token_endpoint=f"http://127.0.0.1:{closed}/t"
    )
    with pytest.raises(OAuth2Error, match="request_failed") as caught:
        await exchange_code(nowhere, credential)
    assert caught.value.status_code is None

    not_oauth = OpenIdConnectWithConfig(  # a GET-only page: 405 with a non-OAuth2 JSON body
        authorization_endpoint="http://127.0.0.1/a", token_endpoint=f"{oauth_server.url}/callback"
    )
    with pytest.raises(OAuth2Error, match="http_405") as caught:
        await exchange_code(not_oauth, credential)
    assert caught.value.status_code == 405


async def test_exchange_errors_before_any_request(oauth_server: LiveOAuthServer) -> None:
    credential = credential_for(oauth_server, "web-app", auth_code="c")
    no_token_url = OAuth2(flows=OAuthFlows(implicit={"authorizationUrl": "https://x/a"}))
    with pytest.raises(ValueError, match="no token endpoint"):
        await exchange_code(no_token_url, credential)
    jwt = credential_for(oauth_server, "web-app", auth_code="c")
    assert jwt.oauth2 is not None
    jwt.oauth2.token_endpoint_auth_method = "private_key_jwt"
    with pytest.raises(ValueError, match="private_key_jwt"):
        await exchange_code(scheme_for(oauth_server), jwt)
    nameless = AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(auth_code="c")
    )
    with pytest.raises(ValueError, match="client_id"):
        await exchange_code(scheme_for(oauth_server), nameless)
    assert oauth_server.state.token_requests == []


# --- refresh, client credentials, expiry ------------------------------------------


async def signed_in(server: LiveOAuthServer, client_id: str = "web-app") -> AuthCredential:
    scheme = scheme_for(server)
    landed = await consent(authorization_request(scheme, credential_for(server, client_id)))
    return await exchange_code(scheme, landed)


async def test_refresh_keeps_the_refresh_token(oauth_server: LiveOAuthServer) -> None:
    tokens = await signed_in(oauth_server)
    assert tokens.oauth2 is not None
    refreshed = await refresh_token(scheme_for(oauth_server), tokens)
    assert refreshed.oauth2 is not None
    assert refreshed.oauth2.access_token != tokens.oauth2.access_token
    assert refreshed.oauth2.refresh_token == tokens.oauth2.refresh_token  # none reissued
    assert refreshed.oauth2.id_token == tokens.oauth2.id_token
    seen = oauth_server.state.token_requests[-1]
    assert seen["auth"] == "basic"  # the default client authentication
    assert seen["form"] == {
        "grant_type": "refresh_token",
        "refresh_token": tokens.oauth2.refresh_token,
    }
    assert (await call_api(oauth_server, refreshed)).status_code == 200


async def test_refresh_takes_a_rotated_refresh_token(oauth_server: LiveOAuthServer) -> None:
    oauth_server.state.rotate_refresh_tokens = True
    tokens = await signed_in(oauth_server, "spa")
    refreshed = await refresh_token(scheme_for(oauth_server), tokens)
    assert refreshed.oauth2 is not None and tokens.oauth2 is not None
    assert refreshed.oauth2.refresh_token not in (None, tokens.oauth2.refresh_token)
    with pytest.raises(OAuth2Error, match="invalid_grant"):  # the old one is spent
        await refresh_token(scheme_for(oauth_server), tokens)
    again = await refresh_token(scheme_for(oauth_server), refreshed)
    assert (await call_api(oauth_server, again)).status_code == 200


async def test_refresh_errors(oauth_server: LiveOAuthServer) -> None:
    with pytest.raises(ValueError, match="refresh_token"):
        await refresh_token(scheme_for(oauth_server), credential_for(oauth_server, "web-app"))
    unknown = credential_for(oauth_server, "web-app", refresh_token="rt-made-up-token")
    with pytest.raises(OAuth2Error, match="invalid_grant") as caught:
        await refresh_token(scheme_for(oauth_server), unknown)
    assert "rt-made-up-token" not in str(caught.value)


async def test_client_credentials(oauth_server: LiveOAuthServer) -> None:
    raw = credential_for(oauth_server, "web-app", audience="https://api.example")
    tokens = await client_credentials_token(scheme_for(oauth_server), raw)
    assert tokens.oauth2 is not None and tokens.oauth2.access_token
    assert tokens.oauth2.refresh_token is None and tokens.oauth2.expires_at is not None
    form = oauth_server.state.token_requests[-1]["form"]
    assert form["grant_type"] == "client_credentials"
    assert form["scope"] == "svc:sync" and form["audience"] == "https://api.example"
    assert oauth_server.state.authorize_requests == []  # no user involved
    assert (await call_api(oauth_server, tokens)).json()["scope"] == "svc:sync"

    basic = credential_for(
        oauth_server, "svc:odd id", token_endpoint_auth_method="client_secret_basic"
    )
    oidc = await client_credentials_token(oidc_for(oauth_server), basic)
    assert oauth_server.state.token_requests[-1]["auth"] == "basic"
    assert (await call_api(oauth_server, oidc)).json()["scope"] == "openid profile"

    with pytest.raises(OAuth2Error, match="unauthorized_client"):
        await client_credentials_token(
            scheme_for(oauth_server), credential_for(oauth_server, "spa")
        )
    user_only = OAuth2(
        flows=OAuthFlows(authorizationCode=scheme_for(oauth_server).flows.authorizationCode)
    )
    with pytest.raises(ValueError, match="clientCredentials"):
        await client_credentials_token(user_only, raw)


async def test_is_expired(oauth_server: LiveOAuthServer) -> None:
    oauth_server.state.expires_in = 30
    tokens = await signed_in(oauth_server)
    assert is_expired(tokens)  # inside the default 60 s leeway
    assert not is_expired(tokens, leeway=0)
    now = int(time.time())

    def at(expires_at: int | None) -> AuthCredential:
        oauth2 = OAuth2Auth(access_token="t", expires_at=expires_at)
        return AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=oauth2)

    assert is_expired(at(now - 1), leeway=0)
    assert not is_expired(at(now + 3600))
    assert is_expired(at(now + 3600), leeway=3700)
    assert not is_expired(at(None))
    assert not is_expired(AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k"))


async def test_form_encoded_token_responses(oauth_server: LiveOAuthServer) -> None:
    oauth_server.state.form_encoded = True
    tokens = await signed_in(oauth_server)
    assert tokens.oauth2 is not None and tokens.oauth2.expires_in == 3600  # "3600" parsed
    assert tokens.oauth2.refresh_token and tokens.oauth2.id_token
    assert (await call_api(oauth_server, tokens)).status_code == 200


async def test_fastapi_scheme_models_work_too(oauth_server: LiveOAuthServer) -> None:
    """google-adk programs declare schemes with FastAPI's models: they are read the same."""
    from fastapi.openapi import models

    scheme = models.OAuth2(
        flows=models.OAuthFlows(
            authorizationCode=models.OAuthFlowAuthorizationCode(
                authorizationUrl=f"{oauth_server.url}/authorize",
                tokenUrl=f"{oauth_server.url}/token",
                scopes=SCOPES,
            )
        )
    )
    raw = credential_for(oauth_server, "spa")
    request = authorization_request(scheme, raw)  # type: ignore[arg-type]
    assert request.oauth2 is not None and request.oauth2.auth_uri is not None
    assert query(request.oauth2.auth_uri)["scope"] == "read:me offline"
    tokens = await exchange_code(scheme, await consent(request))  # type: ignore[arg-type]
    refreshed = await refresh_token(scheme, tokens)  # type: ignore[arg-type]
    assert (await call_api(oauth_server, refreshed)).status_code == 200
