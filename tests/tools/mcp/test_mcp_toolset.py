"""McpToolset against a real MCP server: over stdio (a subprocess), Streamable HTTP and SSE."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools.mcp_tool import (
    McpConnectionError,
    MCPToolset,
    McpToolset,
    SseConnectionParams,
    StdioConnectionParams,
    StdioServerParameters,
    StreamableHTTPConnectionParams,
)


def _responses(events) -> dict[str, dict]:
    return {r.name: r.response for e in events for r in e.get_function_responses()}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _wait_gone(pid: int, seconds: float = 10) -> bool:
    for _ in range(int(seconds / 0.05)):
        if not _alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_an_agent_calls_a_stdio_server_tool_and_sees_its_declared_schema(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    model = ScriptedModel([function_call("add", {"a": 2, "b": 40}), "2 + 40 = 42"])
    agent = LlmAgent(name="calc", model=model, tools=[toolset])
    async with TestRunner(agent) as runner:  # closing the runner closes the toolset
        events = await runner.run("What is 2 + 40?")
    result = _responses(events)["add"]
    assert result["structuredContent"] == {"result": 42}
    assert result["content"] == [{"type": "text", "text": "42"}]
    assert result["isError"] is False and "_meta" not in result and "status" not in result
    assert events[-1].text == "2 + 40 = 42" and events[-1].actions.agent_outcome is None

    declared = {d.name: d for t in model.requests[0].config.tools for d in t.function_declarations}
    assert set(declared) == {"add", "lookup_order", "server_pid", "crash", "auth_header"}
    assert declared["add"].description == "Adds two integers."
    schema = declared["add"].parameters_json_schema
    assert schema["required"] == ["a", "b"] and schema["properties"]["a"]["type"] == "integer"


async def test_runner_close_ends_the_server_process(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    agent = LlmAgent(
        name="a", model=ScriptedModel([function_call("server_pid"), "ok"]), tools=[toolset]
    )
    runner = TestRunner(agent)
    events = await runner.run("pid?")
    pid = _responses(events)["server_pid"]["structuredContent"]["result"]
    assert _alive(pid)
    await runner.close()
    assert await _wait_gone(pid), "the stdio server outlived Runner.close()"


async def test_tool_filter_narrows_what_the_model_is_offered(stdio_params):
    by_name = McpToolset(connection_params=stdio_params, tool_filter=["add"])
    by_predicate = McpToolset(
        connection_params=stdio_params, tool_filter=lambda tool, ctx: tool.name.startswith("s")
    )
    try:
        assert [t.name for t in await by_name.get_tools_checked()] == ["add"]
        assert [t.name for t in await by_predicate.get_tools_checked()] == ["server_pid"]
    finally:
        await by_name.close()
        await by_predicate.close()


async def test_a_tool_error_is_a_failed_result_the_model_sees_and_fails_the_agent(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    model = ScriptedModel([function_call("lookup_order", {"order_id": "B-7"}), "No such order."])
    runner = TestRunner(LlmAgent(name="orders", model=model, tools=[toolset]))
    try:
        events = await runner.run("Where is order B-7?")
    finally:
        await toolset.close()
    result = _responses(events)["lookup_order"]
    assert result["isError"] is True and result["status"] == "error"
    assert "order B-7 not found" in result["message"]
    outcome = events[-1].actions.agent_outcome
    assert outcome.status == "failure" and "order B-7 not found" in outcome.reason
    sent_back = model.requests[1].contents[-1].parts[0].function_response.response
    assert sent_back["message"] == result["message"]  # the model is told what went wrong


async def test_invalid_arguments_come_back_as_an_error_result(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    try:
        tools = {t.name: t for t in await toolset.get_tools()}
        result = await tools["add"].run_async(args={"a": 1}, tool_context=None)
    finally:
        await toolset.close()
    assert result["status"] == "error" and "b" in result["message"]


async def test_a_crashed_server_fails_the_call_and_the_next_use_restarts_it(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    try:
        tools = {t.name: t for t in await toolset.get_tools()}
        first = await tools["server_pid"].run_async(args={}, tool_context=None)
        with pytest.raises(McpConnectionError, match="closed the connection during a request"):
            await tools["crash"].run_async(args={}, tool_context=None)
        tools = {t.name: t for t in await toolset.get_tools()}
        second = await tools["server_pid"].run_async(args={}, tool_context=None)
    finally:
        await toolset.close()
    assert first["structuredContent"]["result"] != second["structuredContent"]["result"]


async def test_a_server_that_cannot_start_is_a_clear_connection_error(tmp_path):
    params = StdioServerParameters(command="/nonexistent/mcp-server", args=[])
    with open(tmp_path / "server.log", "w") as errlog:
        toolset = McpToolset(connection_params=params, errlog=errlog)
        with pytest.raises(
            McpConnectionError, match="'/nonexistent/mcp-server': FileNotFoundError"
        ):
            await toolset.get_tools()
        await toolset.close()


async def test_a_stdio_servers_stderr_goes_to_errlog(tmp_path, stdio_params):
    noisy = StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; sys.stderr.write('starting up\\n'); sys.stderr.flush()"],
    )
    with open(tmp_path / "server.log", "w") as errlog:
        toolset = McpToolset(
            connection_params=StdioConnectionParams(server_params=noisy, timeout=30),
            errlog=errlog,
        )
        with pytest.raises(McpConnectionError):  # it exits without speaking MCP
            await toolset.get_tools()
        await toolset.close()
    assert "starting up" in (tmp_path / "server.log").read_text()


async def test_a_server_that_never_answers_times_out():
    silent = StdioServerParameters(
        command=sys.executable, args=["-c", "import time; time.sleep(60)"]
    )
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=silent, timeout=1))
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(McpConnectionError, match="did not answer within 1 s"):
        await toolset.get_tools()
    assert loop.time() - started < 15
    await toolset.close()


def test_bad_connection_params_are_refused(stdio_params):
    with pytest.raises(TypeError, match="connection_params must be"):
        McpToolset(connection_params="python server.py")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="errlog must be a file with a file descriptor"):
        McpToolset(connection_params=stdio_params, errlog=io.StringIO())
    with pytest.raises(ValueError):
        StdioConnectionParams(server_params=StdioServerParameters(command="x", args=[]), timeout=0)


def test_the_sync_runner_works_across_its_event_loops(stdio_params):
    """Runner.run uses a new event loop per call: each gets its own connection."""
    toolset = McpToolset(connection_params=stdio_params)
    model = ScriptedModel(
        [function_call("add", {"a": 1, "b": 1}), "2", function_call("add", {"a": 2, "b": 2}), "4"]
    )
    runner = InMemoryRunner(LlmAgent(name="calc", model=model, tools=[toolset]))
    session = asyncio.run(
        runner.session_service.create_session(app_name=runner.app_name, user_id="u")
    )
    answers = []
    for question in ("1 + 1?", "2 + 2?"):
        message = types.Content(role="user", parts=[types.Part(text=question)])
        events = list(runner.run(user_id="u", session_id=session.id, new_message=message))
        answers.append(events[-1].text)
    asyncio.run(runner.close())
    assert answers == ["2", "4"]


async def test_streamable_http_server_with_headers(http_url):
    params = StreamableHTTPConnectionParams(
        url=http_url, headers={"Authorization": "Bearer t0ken"}, timeout=30
    )
    toolset = MCPToolset(connection_params=params)  # google-adk's older name
    model = ScriptedModel(
        [function_call("add", {"a": 20, "b": 22}), function_call("auth_header"), "done"]
    )
    try:
        events = await TestRunner(LlmAgent(name="remote", model=model, tools=[toolset])).run("go")
    finally:
        await toolset.close()
    responses = _responses(events)
    assert responses["add"]["structuredContent"] == {"result": 42}
    assert responses["auth_header"]["structuredContent"] == {"result": "Bearer t0ken"}


async def test_an_unreachable_http_server_is_a_clear_connection_error():
    params = StreamableHTTPConnectionParams(url="http://127.0.0.1:9/mcp", timeout=5)
    toolset = McpToolset(connection_params=params)
    with pytest.raises(McpConnectionError, match=r"127\.0\.0\.1:9"):
        await toolset.get_tools()
    await toolset.close()


async def test_sse_server_with_headers(sse_url):
    params = SseConnectionParams(url=sse_url, headers={"Authorization": "Bearer s5e"}, timeout=30)
    toolset = McpToolset(connection_params=params, tool_filter=["add", "auth_header"])
    try:
        tools = {t.name: t for t in await toolset.get_tools_checked()}
        added = await tools["add"].run_async(args={"a": 1, "b": 2}, tool_context=None)
        header = await tools["auth_header"].run_async(args={}, tool_context=None)
    finally:
        await toolset.close()
    assert set(tools) == {"add", "auth_header"}
    assert added["structuredContent"] == {"result": 3}
    assert header["structuredContent"] == {"result": "Bearer s5e"}


def _user_token(ctx) -> dict[str, str]:
    return {"Authorization": f"Bearer {ctx.state['token']}"}


async def test_header_provider_gives_each_user_their_own_connection(http_url):
    params = StreamableHTTPConnectionParams(url=http_url, timeout=30)
    toolset = McpToolset(connection_params=params, header_provider=_user_token, max_connections=1)
    manager = toolset._session_manager
    seen = {}
    try:
        for user in ("ann", "bob", "ann"):
            model = ScriptedModel([function_call("auth_header"), "ok"])
            agent = LlmAgent(name="remote", model=model, tools=[toolset])
            runner = TestRunner(agent, user_id=user, state={"token": f"{user}-token"})
            events = await runner.run("who am I?")
            seen.setdefault(user, []).append(
                _responses(events)["auth_header"]["structuredContent"]["result"]
            )
            assert manager.open_connections() == 1  # max_connections: the idle one was closed
    finally:
        await toolset.close()
    assert seen == {"ann": ["Bearer ann-token"] * 2, "bob": ["Bearer bob-token"]}


def test_header_provider_needs_an_http_server(stdio_params):
    with pytest.raises(ValueError, match="header_provider needs an HTTP server"):
        McpToolset(connection_params=stdio_params, header_provider=_user_token)
    with pytest.raises(ValueError, match="max_connections must be 1 or more"):
        McpToolset(connection_params=stdio_params, max_connections=0)


async def test_calls_in_one_response_share_the_connection_concurrently(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    both = types.Content(
        role="model",
        parts=[
            function_call("add", {"a": 1, "b": 2}),
            function_call("lookup_order", {"order_id": "A-1"}),
            function_call("server_pid"),
        ],
    )
    agent = LlmAgent(name="multi", model=ScriptedModel([both, "done"]), tools=[toolset])
    runner = TestRunner(agent)
    try:
        events = await runner.run("three things")
        assert toolset._session_manager.open_connections() == 1
    finally:
        await runner.close()
    responses = _responses(events)
    assert responses["add"]["structuredContent"] == {"result": 3}
    order = json.loads(responses["lookup_order"]["content"][0]["text"])
    assert order == {"order_id": "A-1", "items": 3}
    assert isinstance(responses["server_pid"]["structuredContent"]["result"], int)


async def test_a_servers_tools_can_wait_for_approval(stdio_params):
    from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests

    toolset = McpToolset(
        connection_params=stdio_params, require_confirmation=lambda a, b: a + b > 10
    )
    model = ScriptedModel(
        [
            function_call("add", {"a": 1, "b": 2}),
            "3",
            function_call("add", {"a": 20, "b": 22}),
            "42",
        ]
    )
    async with TestRunner(LlmAgent(name="calc", model=model, tools=[toolset])) as runner:
        small = await runner.run("1 + 2?")  # below the line: runs at once
        assert _responses(small)["add"]["structuredContent"] == {"result": 3}
        waiting = await runner.run("20 + 22?")
        assert "structuredContent" not in _responses(waiting)["add"]  # not sent to the server
        [request] = confirmation_requests(waiting[-1])
        done = await runner.run(confirmation_answer(request, confirmed=True))
    assert _responses(done)["add"]["structuredContent"] == {"result": 42}
    assert done[-1].text == "42"
