"""FixtureServer: canned responses in order, every request recorded."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from pyadk.testing.fixture_server import FixtureServer, json_response, sse_response


def _post(url: str, payload: object, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers=headers or {}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_serves_queued_responses_in_order_and_records_requests() -> None:
    with FixtureServer() as server:
        server.enqueue(json_response({"n": 1}), json_response({"n": 2}, status=201))
        assert server.pending == 2
        first = _post(f"{server.base_url}/v1/a?alt=sse", {"q": 1}, {"X-Key": "k"})
        second = _post(f"{server.base_url}/v1/b", {"q": 2})
        assert first == (200, b'{"n": 1}')
        assert second == (201, b'{"n": 2}')
        assert server.pending == 0
        recorded = server.requests[0]
        assert (recorded.method, recorded.path, recorded.query) == (
            "POST",
            "/v1/a",
            {"alt": ["sse"]},
        )
        assert recorded.headers["x-key"] == "k"
        assert [r.json() for r in server.requests] == [{"q": 1}, {"q": 2}]


def test_a_request_with_nothing_queued_gets_a_404_that_says_so() -> None:
    with FixtureServer() as server:
        status, body = _post(f"{server.base_url}/v1/chat/completions", {})
        assert status == 404
        message = json.loads(body)["error"]["message"]
        assert message == "fixture server has no response queued for POST /v1/chat/completions"
        assert len(server.requests) == 1


def test_sse_events_are_framed_with_optional_event_names() -> None:
    with FixtureServer() as server:
        server.enqueue(sse_response([{"a": 1}, ("ping", {"type": "ping"}), "[DONE]"]))
        status, body = _post(server.base_url, {})
        assert status == 200
        assert body == b'data: {"a": 1}\n\nevent: ping\ndata: {"type": "ping"}\n\ndata: [DONE]\n\n'


def test_reset_forgets_requests_and_queue() -> None:
    server = FixtureServer().start()
    try:
        server.enqueue(json_response({}))
        _post(server.base_url, {})
        server.enqueue(json_response({}))
        server.reset()
        assert (server.requests, server.pending) == ([], 0)
    finally:
        server.stop()
    with pytest.raises(OSError):
        _post(server.base_url, {})
