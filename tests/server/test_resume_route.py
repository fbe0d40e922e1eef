"""Resuming an interrupted invocation over real HTTP: ``invocationId`` in the run body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from server_support import LiveServer, read_sse

from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest
from pyadk.server import create_app
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import FunctionTool

CALL = {"id": "adk-call-1", "name": "lookup", "args": {"sku": "A7"}}
INTERRUPTED = [  # what a server killed in the middle of the lookup left in the session
    {
        "invocationId": "inv-1",
        "author": "user",
        "content": {"role": "user", "parts": [{"text": "price of A7?"}]},
    },
    {
        "invocationId": "inv-1",
        "author": "shop",
        "content": {"role": "model", "parts": [{"functionCall": CALL}]},
    },
]


class Shop:
    def __init__(self) -> None:
        self.lookups: list[str] = []

    def lookup(self, sku: str) -> dict:
        """Looks up a price."""
        self.lookups.append(sku)
        return {"sku": sku, "price": 12}

    def agent(self) -> LlmAgent:
        def reply(request: LlmRequest) -> Any:
            response = request.contents[-1].parts[0].function_response
            if response is None:
                return function_call("lookup", {"sku": "A7"})
            return f"{response.response['sku']} costs {response.response['price']} euros."

        tool = FunctionTool(self.lookup, idempotent=True)
        return LlmAgent(name="shop", model=FunctionModel(reply), tools=[tool])


@pytest.fixture
def shop() -> Shop:
    return Shop()


@pytest.fixture
def client(serve: Callable[[Any], LiveServer], shop: Shop) -> httpx.Client:
    client = serve(create_app(agents={"shop": shop.agent()})).client()
    created = client.post(
        "/apps/shop/users/ann/sessions", json={"sessionId": "s1", "events": INTERRUPTED}
    )
    assert created.status_code == 200
    return client


def body(**fields: Any) -> dict[str, Any]:
    return {"appName": "shop", "userId": "ann", "sessionId": "s1", **fields}


def test_run_with_invocation_id_finishes_the_interrupted_invocation(
    client: httpx.Client, shop: Shop
) -> None:
    response = client.post("/run", json=body(invocationId="inv-1"))
    assert response.status_code == 200, response.text
    events = response.json()
    assert shop.lookups == ["A7"]  # the idempotent lookup ran again
    assert {e["invocationId"] for e in events} == {"inv-1"}
    assert events[0]["content"]["parts"][0]["functionResponse"]["id"] == "adk-call-1"
    assert events[-1]["content"]["parts"][0]["text"] == "A7 costs 12 euros."
    again = client.post("/run", json=body(invocationId="inv-1"))
    assert again.status_code == 200 and again.json() == []  # finished: nothing to do
    assert shop.lookups == ["A7"]


def test_run_sse_resumes_too(client: httpx.Client, shop: Shop) -> None:
    with client.stream("POST", "/run_sse", json=body(invocationId="inv-1")) as response:
        assert response.status_code == 200
        messages = [m.json() for m in read_sse(response.iter_lines()).messages]
    assert messages[-1]["content"]["parts"][0]["text"] == "A7 costs 12 euros."


def test_bad_resume_requests_are_refused_before_anything_runs(
    client: httpx.Client, shop: Shop
) -> None:
    unknown = client.post("/run", json=body(invocationId="inv-9"))
    assert unknown.status_code == 404
    assert "has no invocation 'inv-9'" in unknown.json()["detail"]
    message = {"role": "user", "parts": [{"text": "hi"}]}
    both = client.post("/run", json=body(invocationId="inv-1", newMessage=message))
    assert both.status_code == 422 and "without newMessage" in both.text
    neither = client.post("/run", json=body())
    assert neither.status_code == 422 and "newMessage is required" in neither.text
    assert shop.lookups == []
