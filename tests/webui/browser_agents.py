"""Agents of the browser tests, built per test."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import BaseLlm, LlmRequest, LlmResponse
from pyadk.testing import FunctionModel, Stream, function_call
from pyadk.tools import FunctionTool
from pyadk.tools.tool_context import ToolContext


class GatedModel(BaseLlm):
    """Streams ``first``, waits for ``gate`` (a threading.Event), then streams ``second``."""

    model: str = "gated"
    first: str
    second: str
    gate: threading.Event

    model_config = {"arbitrary_types_allowed": True}

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        yield LlmResponse(content=types.ModelContent(self.first), partial=True)
        await asyncio.to_thread(self.gate.wait, 30)
        yield LlmResponse(content=types.ModelContent(self.second), partial=True)
        yield LlmResponse(content=types.ModelContent(self.first + self.second), turn_complete=True)


def gated_agent(gate: threading.Event) -> LlmAgent:
    model = GatedModel(first="The answer is coming. ", second="It is 42.", gate=gate)
    return LlmAgent(name="oracle", model=model)


def remember(text: str, tool_context: ToolContext) -> dict:
    """Remembers a text.

    Args:
      text: the text to remember.
    """
    tool_context.state["remembered"] = text
    return {"stored": text}


def echo_agent() -> LlmAgent:
    """Calls ``remember`` with the user's text, then answers with it (markup included)."""

    def reply(request: LlmRequest) -> object:
        last = request.contents[-1].parts[0]
        if last.function_response is not None:
            return Stream(["Stored: ", str(last.function_response.response["stored"])])
        return function_call("remember", {"text": last.text or ""})

    return LlmAgent(name="echo", model=FunctionModel(reply), tools=[remember])


def approval_agent(paid: list[int]) -> LlmAgent:
    """Asks to pay 900 euros with ``pay``, which needs approval (``paid`` records what
    really ran), then streams what the tool answered."""

    def pay(amount: int) -> dict:
        """Pays an invoice.

        Args:
          amount: euros.
        """
        paid.append(amount)
        return {"status": "paid", "amount": amount}

    def reply(request: LlmRequest) -> object:
        response = request.contents[-1].parts[0].function_response
        if response is None:
            return ["Let me pay that.", function_call("pay", {"amount": 900})]
        if "error" in response.response:
            return Stream(["I did not pay. ", "The payment was rejected."])
        return Stream([f"Paid {response.response['amount']} euros. ", "Receipt sent."])

    tool = FunctionTool(pay, require_confirmation=True)
    return LlmAgent(name="payments", model=FunctionModel(reply), tools=[tool])


def weather_agent(calls: list[str]) -> LlmAgent:
    """Calls the idempotent ``weather`` tool (``calls`` records each run), then streams
    what it answered."""

    def weather(city: str) -> dict:
        """Looks up the weather.

        Args:
          city: the city.
        """
        calls.append(city)
        return {"city": city, "sky": "sunny"}

    def reply(request: LlmRequest) -> object:
        response = request.contents[-1].parts[0].function_response
        if response is None:
            return function_call("weather", {"city": "Paris"})
        return Stream([f"Weather in {response.response['city']}: ", "sunny."])

    tool = FunctionTool(weather, idempotent=True)
    return LlmAgent(name="forecaster", model=FunctionModel(reply), tools=[tool])


def api_key_agent(keys: list[str]) -> LlmAgent:
    """Calls ``forecast``, which needs the user's API key (``keys`` records the keys it
    ran with), then streams what it answered."""
    from pyadk.auth.auth_schemes import APIKey
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.auth.credential_manager import CredentialManager

    config = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))

    async def forecast(city: str, tool_context: ToolContext) -> dict:
        """The weather in a city.

        Args:
          city: the city.
        """
        manager = CredentialManager(config)
        credential = await manager.get_auth_credential(tool_context)
        if credential is None or not credential.api_key:
            await manager.request_credential(tool_context)
            return {"pending": True, "message": "Waiting for your API key."}
        keys.append(credential.api_key)
        return {"city": city, "sky": "clear"}

    def reply(request: LlmRequest) -> object:
        response = request.contents[-1].parts[0].function_response
        if response is None:
            return ["Let me look that up.", function_call("forecast", {"city": "Paris"})]
        return Stream([f"The sky in {response.response['city']} is ", "clear."])

    return LlmAgent(name="weather", model=FunctionModel(reply), tools=[FunctionTool(forecast)])


def sign_in_agent(oauth_url: str) -> LlmAgent:
    """Calls ``my_profile``, which needs the user to sign in with OAuth2 at the server
    ``oauth_url`` (public client ``spa``, redirected to ``<oauth_url>/callback``), then
    says what it answered."""
    from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
    from pyadk.auth.auth_schemes import OAuth2, OAuthFlows
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.auth.credential_manager import CredentialManager

    flow = {
        "authorizationUrl": f"{oauth_url}/authorize",
        "tokenUrl": f"{oauth_url}/token",
        "scopes": {"read:me": "Read your profile"},
    }
    config = AuthConfig(
        auth_scheme=OAuth2(flows=OAuthFlows(authorizationCode=flow)),
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2,
            oauth2=OAuth2Auth(client_id="spa", redirect_uri=f"{oauth_url}/callback"),
        ),
    )

    async def my_profile(tool_context: ToolContext) -> dict:
        """The signed-in user's profile."""
        manager = CredentialManager(config)
        credential = await manager.get_auth_credential(tool_context)
        if credential is None:
            await manager.request_credential(tool_context)
            return {"pending": True, "message": "Sign in to continue."}
        assert credential.oauth2 is not None
        return {"signed_in": bool(credential.oauth2.access_token)}

    def reply(request: LlmRequest) -> object:
        response = request.contents[-1].parts[0].function_response
        if response is None:
            return function_call("my_profile")
        return f"Profile: {response.response}"

    return LlmAgent(name="profile", model=FunctionModel(reply), tools=[FunctionTool(my_profile)])
