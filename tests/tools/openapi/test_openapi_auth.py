"""Credentials of OpenAPI tools reach the server: API keys (header, query, cookie), HTTP
bearer and basic, OAuth2 access tokens; an OAuth2 scheme with neither a token nor a
client raises a clear error."""

from __future__ import annotations

import base64

import pytest

from pyadk.agents import LlmAgent
from pyadk.auth import AuthCredential, AuthCredentialTypes, HttpAuth, HttpCredentials, OAuth2Auth
from pyadk.auth.auth_schemes import APIKey, HTTPBase, OAuth2
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools.openapi_tool import OpenAPIToolset
from pyadk.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential


def _toolset(petstore, **kwargs) -> OpenAPIToolset:
    return OpenAPIToolset(
        spec_dict=petstore.spec_dict(), allow_private_network_access=True, **kwargs
    )


@pytest.mark.parametrize(
    ("location", "name", "field"),
    [
        ("header", "X-API-Key", "api_key_header"),
        ("query", "key", "api_key_query"),
        ("cookie", "key", "api_key_cookie"),
    ],
)
async def test_an_api_key_is_sent_where_the_scheme_says(petstore, location, name, field):
    scheme, credential = token_to_scheme_credential("apikey", location, name, "k-123")
    toolset = _toolset(petstore, auth_scheme=scheme, auth_credential=credential)
    model = ScriptedModel([function_call("who_am_i"), "ok"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[toolset])).run("who?")
    seen = next(r.response for e in events for r in e.get_function_responses())
    assert seen[field] == "k-123"
    assert seen["authorization"] is None
    # the key is never an argument the model sees
    schema = model.requests[0].config.tools[0].function_declarations[0].parameters_json_schema
    assert all("auth" not in name for name in schema["properties"])


async def test_a_bearer_token_is_sent_in_the_authorization_header(petstore):
    scheme, credential = token_to_scheme_credential("oauth2Token", credential_value="tok-1")
    toolset = _toolset(petstore, auth_scheme=scheme, auth_credential=credential)
    result = await toolset.get_tool("who_am_i").call(args={})
    assert result["authorization"] == "Bearer tok-1"
    assert petstore.seen[-1].headers["authorization"] == "Bearer tok-1"
    await toolset.close()


async def test_basic_credentials_are_sent_base64_encoded(petstore):
    credential = AuthCredential(
        auth_type=AuthCredentialTypes.HTTP,
        http=HttpAuth(
            scheme="basic",
            credentials=HttpCredentials(username="ann", password="s3cret"),
            additional_headers={"X-Tenant": "blue"},
        ),
    )
    toolset = _toolset(petstore, auth_scheme=HTTPBase(scheme="basic"), auth_credential=credential)
    result = await toolset.get_tool("who_am_i").call(args={})
    assert result["authorization"] == "Basic " + base64.b64encode(b"ann:s3cret").decode()
    assert petstore.seen[-1].headers["x-tenant"] == "blue"
    await toolset.close()


async def test_the_specs_own_scheme_takes_a_credential_given_alone(petstore):
    # deletePet declares the api_key scheme (header X-API-Key); only the key is given
    credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="secret-key")
    toolset = _toolset(petstore, auth_credential=credential)
    assert await toolset.get_tool("delete_pet").call(args={"pet_id": 1}) == {"text": ""}
    assert petstore.seen[-1].method == "DELETE"
    assert petstore.seen[-1].headers["x-api-key"] == "secret-key"
    await toolset.close()


async def test_a_scheme_without_a_credential_raises_naming_tool_and_scheme(petstore):
    toolset = _toolset(petstore)  # deletePet requires api_key, whoAmI bearer
    with pytest.raises(ValueError, match=r"Tool 'delete_pet' needs a credential for its apiKey"):
        await toolset.get_tool("delete_pet").call(args={"pet_id": 1})
    with pytest.raises(ValueError, match=r"Tool 'who_am_i' needs a credential for its http"):
        await toolset.get_tool("who_am_i").call(args={})
    assert petstore.seen == []  # nothing was sent unauthenticated


async def test_oauth2_without_a_token_or_client_raises_and_an_access_token_is_a_bearer(petstore):
    scheme = OAuth2.model_validate(
        {
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://auth.example.invalid/authorize",
                    "tokenUrl": "https://auth.example.invalid/token",
                    "scopes": {},
                }
            }
        }
    )
    # (The consent round trip itself: test_openapi_oauth.py.)
    no_client = AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth())
    toolset = _toolset(petstore, auth_scheme=scheme, auth_credential=no_client)
    model = ScriptedModel([function_call("who_am_i"), "never"])
    with pytest.raises(ValueError, match=r"Tool 'who_am_i' uses the oauth2 security scheme"):
        await TestRunner(LlmAgent(name="a", model=model, tools=[toolset])).run("who?")
    needs_consent = AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2,
        oauth2=OAuth2Auth(client_id="id", client_secret="secret"),
    )
    toolset = _toolset(petstore, auth_scheme=scheme, auth_credential=needs_consent)
    with pytest.raises(ValueError, match=r"needs the user's consent: run it through an agent"):
        await toolset.get_tool("who_am_i").call(args={})  # no tool_context to ask with
    assert petstore.seen == []

    holding_token = AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(access_token="at-9")
    )
    toolset = _toolset(petstore, auth_scheme=scheme, auth_credential=holding_token)
    assert (await toolset.get_tool("who_am_i").call(args={}))["authorization"] == "Bearer at-9"
    await toolset.close()


async def test_fastapi_scheme_models_and_dicts_are_accepted(petstore):
    from fastapi.openapi.models import APIKey as FastApiKey

    scheme = FastApiKey.model_validate({"type": "apiKey", "in": "header", "name": "X-API-Key"})
    credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k")
    toolset = _toolset(petstore, auth_scheme=scheme, auth_credential=credential)
    tool = toolset.get_tool("who_am_i")
    assert isinstance(tool.auth_scheme, APIKey) and tool.auth_scheme.name == "X-API-Key"
    assert (await tool.call(args={}))["api_key_header"] == "k"
    tool.configure_auth_scheme({"type": "apiKey", "in": "query", "name": "key"})
    assert (await tool.call(args={}))["api_key_query"] == "k"
    await toolset.close()


def test_credentials_keep_google_adks_json_and_hide_secrets():
    credential = AuthCredential.model_validate(
        {"authType": "http", "http": {"scheme": "bearer", "credentials": {"token": "t"}}}
    )
    assert credential.http is not None and credential.http.credentials.token == "t"
    assert "t'" not in repr(credential.http.credentials)
    assert credential.model_dump(by_alias=True, exclude_none=True) == {
        "authType": "http",
        "http": {"scheme": "bearer", "credentials": {"token": "t"}},
    }
    with pytest.raises(ValueError, match="Invalid location for apiKey"):
        token_to_scheme_credential("apikey", "body", "k", "v")  # type: ignore[arg-type]
