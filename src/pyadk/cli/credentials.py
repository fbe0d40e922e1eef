"""Credential requests in `pyadk run`: a tool's ``adk_request_credential`` call read
from an event, the question the user is asked, and the answer sent as the next message
(google-adk's format: the ``authConfig`` it was sent, ``exchangedAuthCredential``
filled in)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pyadk import types
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.events.event import Event

SIGN_IN_SCHEMES = frozenset({"oauth2", "openIdConnect"})
"""Scheme types whose credential comes from a sign-in (the rest: a key or a token)."""


@dataclass
class CredentialRequest:
    """One ``adk_request_credential`` call: what the user is asked for."""

    request_id: str
    call_id: str | None
    auth_config: dict[str, Any]
    tool: str | None = None

    @property
    def scheme(self) -> dict[str, Any]:
        value = self.auth_config.get("authScheme") or self.auth_config.get("auth_scheme")
        return value if isinstance(value, dict) else {}

    @property
    def scheme_type(self) -> str | None:
        kind = self.scheme.get("type")
        return kind if isinstance(kind, str) else None

    @property
    def signs_in(self) -> bool:
        """True for OAuth2 / OpenID Connect: the user signs in at :attr:`auth_uri`."""
        return self.scheme_type in SIGN_IN_SCHEMES

    @property
    def hidden(self) -> bool:
        """Whether the answer is a secret to read without echo (a key, a token)."""
        return not self.signs_in

    @property
    def auth_uri(self) -> str | None:
        """The sign-in URL of an OAuth2 / OpenID Connect request."""
        oauth2 = self._sent().get("oauth2")
        uri = oauth2.get("authUri") or oauth2.get("auth_uri") if isinstance(oauth2, dict) else None
        return uri if isinstance(uri, str) and uri else None

    def describe(self) -> str:
        """What the tool needs, e.g. ``forecast needs an API key (X-Api-Key header)``."""
        tool = self.tool or "a tool"
        if self.signs_in:
            return f"{tool} needs you to sign in"
        return f"{tool} needs {self._what()}"

    def prompt(self) -> str:
        """The question asked for the answer."""
        if self.signs_in:
            return "Paste the URL your browser landed on after signing in (empty: skip): "
        if self.scheme_type == "apiKey":
            label = "API key"
        elif self._http_scheme() == "basic":
            label = "user:password"
        else:
            label = "Token"
        return f"{label} for {self.tool or 'the tool'} (hidden, empty: skip): "

    def answer(self, value: str) -> types.Part:
        """The function response answering this request with ``value``."""
        config = copy.deepcopy(self.auth_config)
        config["exchangedAuthCredential"] = self._credential(value)
        response = types.FunctionResponse(
            id=self.request_id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=config
        )
        return types.Part(function_response=response)

    def _what(self) -> str:
        if self.scheme_type == "apiKey":
            name, where = self.scheme.get("name"), self.scheme.get("in")
            detail = " ".join(str(p) for p in (name, where) if p)
            return f"an API key ({detail})" if detail else "an API key"
        if self.scheme_type == "http":
            scheme = self._http_scheme()
            return "a user name and password" if scheme == "basic" else f"a {scheme} token"
        return "a credential"

    def _http_scheme(self) -> str:
        scheme = self.scheme.get("scheme")
        return scheme.lower() if isinstance(scheme, str) and scheme else "bearer"

    def _sent(self) -> dict[str, Any]:
        sent = self.auth_config.get("exchangedAuthCredential")
        return sent if isinstance(sent, dict) else {}

    def _credential(self, value: str) -> dict[str, Any]:
        if self.scheme_type == "apiKey":
            return {"authType": "apiKey", "apiKey": value}
        if self.scheme_type == "http":
            scheme = self._http_scheme()
            if scheme == "basic":
                username, _, password = value.partition(":")
                credentials = {"username": username, "password": password}
            else:
                credentials = {"token": value}
            return {"authType": "http", "http": {"scheme": scheme, "credentials": credentials}}
        sent = copy.deepcopy(self._sent())
        oauth2 = sent.get("oauth2")
        oauth2 = dict(oauth2) if isinstance(oauth2, dict) else {}
        oauth2["authResponseUri"] = value
        return {**sent, "authType": sent.get("authType", "oauth2"), "oauth2": oauth2}


def credential_requests(event: Event, tools: dict[str, str]) -> list[CredentialRequest]:
    """The credential requests of an event; ``tools`` maps call ids to tool names."""
    requests: list[CredentialRequest] = []
    for call in event.get_function_calls():
        if call.name != REQUEST_EUC_FUNCTION_CALL_NAME or not call.id:
            continue
        args = call.args or {}
        config = args.get("authConfig", args.get("auth_config"))
        call_id = args.get("functionCallId", args.get("function_call_id"))
        call_id = call_id if isinstance(call_id, str) else None
        requests.append(
            CredentialRequest(
                request_id=call.id,
                call_id=call_id,
                auth_config=dict(config) if isinstance(config, dict) else {},
                tool=tools.get(call_id) if call_id else None,
            )
        )
    return requests


def answered_text(requests: list[CredentialRequest]) -> str:
    """How the user's answer is shown: never the credential."""
    return "\n".join("Signed in" if r.signs_in else "Provided a credential" for r in requests)
