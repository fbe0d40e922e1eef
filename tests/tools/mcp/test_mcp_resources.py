"""MCP resources: McpToolset's resource methods and the load_mcp_resource tool, against
the real demo server (stdio and Streamable HTTP)."""

from __future__ import annotations

import base64
import logging
from contextlib import asynccontextmanager

import mcp_types
import pytest
from mcp import MCPError
from mcp_demo_server import LOGO_PNG

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools.load_mcp_resource_tool import LoadMcpResourceTool
from pyadk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams

NAMES = ["refund_policy", "logo", "broken"]
POLICY = "Refunds within 30 days, with the receipt."


@pytest.fixture(params=["stdio", "http"])
def connection_params(request):
    if request.param == "stdio":
        return request.getfixturevalue("stdio_params")
    return StreamableHTTPConnectionParams(url=request.getfixturevalue("http_url"), timeout=30)


async def test_the_toolset_lists_describes_and_reads_resources(connection_params):
    toolset = McpToolset(connection_params=connection_params)
    try:
        assert await toolset.list_resources() == NAMES
        assert await toolset.get_resource_info("logo") == {
            "name": "logo",
            "uri": "images://logo.png",
            "description": "The shop's logo.",
            "mimeType": "image/png",
        }
        (text,) = await toolset.read_resource("refund_policy")
        assert isinstance(text, mcp_types.TextResourceContents)
        assert (text.text, text.mime_type) == (POLICY, "text/markdown")
        (blob,) = await toolset.read_resource("logo")
        assert isinstance(blob, mcp_types.BlobResourceContents)
        assert base64.b64decode(blob.blob) == LOGO_PNG and blob.mime_type == "image/png"

        for method in (toolset.read_resource, toolset.get_resource_info):
            with pytest.raises(ValueError, match="no resource named 'menu'") as info:
                await method("menu")
            assert "'refund_policy', 'logo', 'broken'" in str(info.value)
        with pytest.raises(MCPError, match="the disk is on fire"):  # the server's own error
            await toolset.read_resource("broken")
        assert await toolset.list_resources() == NAMES  # the connection is still good
    finally:
        await toolset.close()


async def test_every_page_of_the_resource_list_is_read():
    pages = {
        None: (["a", "b"], "page-2"),
        "page-2": (["c"], "page-3"),
        "page-3": (["d"], None),
    }
    cursors: list[str | None] = []

    class PagedClient:
        async def list_resources(self, *, cursor: str | None = None):
            cursors.append(cursor)
            names, next_cursor = pages[cursor]
            resources = [mcp_types.Resource(name=n, uri=f"memo://{n}") for n in names]
            return mcp_types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

        async def read_resource(self, uri: str):
            text = mcp_types.TextResourceContents(uri=uri, text=f"content of {uri}")
            return mcp_types.ReadResourceResult(contents=[text])

    @asynccontextmanager
    async def session(context=None):
        yield PagedClient()

    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url="http://x/mcp"))
    toolset._session_manager.session = session  # type: ignore[method-assign]
    assert await toolset.list_resources() == ["a", "b", "c", "d"]
    assert cursors == [None, "page-2", "page-3"]
    (content,) = await toolset.read_resource("d")  # found on the last page
    assert content.text == "content of memo://d"


def _model_loading(*names: str) -> FunctionModel:
    """Calls load_mcp_resource with ``names`` first, then answers."""

    def reply(request: LlmRequest):
        if len(model.requests) == 1:
            return function_call("load_mcp_resource", {"resource_names": list(names)})
        return "Refunds are accepted within 30 days."

    model = FunctionModel(reply)
    return model


async def test_the_model_loads_resources_into_its_next_request(stdio_params):
    # tool_filter narrows the server's tools, never load_mcp_resource
    toolset = McpToolset(
        connection_params=stdio_params, tool_filter=["add"], use_mcp_resources=True
    )
    model = _model_loading("refund_policy", "logo")
    async with TestRunner(LlmAgent(name="shop", model=model, tools=[toolset])) as runner:
        events = await runner.run("What is the refund policy?")
        first, second = model.requests
        assert first.declared_function_names() == ["add", "load_mcp_resource"]
        declaration = first.tools_dict["load_mcp_resource"]._get_declaration()
        assert declaration.parameters.properties["resource_names"].type == types.Type.ARRAY
        for request in (first, second):
            assert '["refund_policy", "logo", "broken"]' in request.system_instruction_text()

        loaded = second.contents[-2:]
        assert [c.role for c in loaded] == ["user", "user"]
        assert [p.text for p in loaded[0].parts] == ["Resource refund_policy is:", POLICY]
        header, image = loaded[1].parts
        assert header.text == "Resource logo is:"
        assert image.inline_data.data == LOGO_PNG and image.inline_data.mime_type == "image/png"
        assert second.contents[-3].parts[0].function_response.name == "load_mcp_resource"
        assert events[-1].text == "Refunds are accepted within 30 days."

        # the contents are for that request only: neither stored nor sent again
        session = await runner.session()
        assert not any(p.inline_data for e in session.events for p in e.content.parts)
        await runner.run("thanks")
        assert not any(p.inline_data for c in model.requests[-1].contents for p in c.parts)


async def test_a_resource_that_cannot_be_read_is_logged_and_skipped(stdio_params, caplog):
    toolset = McpToolset(connection_params=stdio_params, use_mcp_resources=True)
    model = _model_loading("broken", "menu", "refund_policy")
    with caplog.at_level(logging.WARNING, logger="pyadk.tools.load_mcp_resource_tool"):
        async with TestRunner(LlmAgent(name="shop", model=model, tools=[toolset])) as runner:
            events = await runner.run("What is the refund policy?")
    assert events[-1].text == "Refunds are accepted within 30 days."  # the turn went on
    loaded = [
        c for c in model.requests[1].contents if c.parts[0].text and "Resource" in c.parts[0].text
    ]
    assert [c.parts[0].text for c in loaded] == ["Resource refund_policy is:"]
    warnings = "\n".join(r.getMessage() for r in caplog.records)
    assert "'broken'" in warnings and "the disk is on fire" in warnings
    assert "'menu'" in warnings and "no resource named 'menu'" in warnings


async def test_a_server_that_cannot_list_resources_does_not_stop_the_turn(stdio_params, caplog):
    toolset = McpToolset(connection_params=stdio_params, use_mcp_resources=True)

    async def failing(readonly_context):
        raise MCPError(-32601, "Method not found")

    toolset._list_mcp_resources = failing  # type: ignore[method-assign]
    model = FunctionModel(lambda request: "No resources today.")
    async with TestRunner(LlmAgent(name="shop", model=model, tools=[toolset])) as runner:
        events = await runner.run("hi")
    assert events[-1].text == "No resources today."
    assert "load_mcp_resource" in model.requests[0].declared_function_names()
    assert "MCP resources" not in model.requests[0].system_instruction_text()
    assert "Method not found" in caplog.text


async def test_without_use_mcp_resources_there_is_no_resource_tool(stdio_params):
    toolset = McpToolset(connection_params=stdio_params)
    model = FunctionModel(lambda request: "ok")
    async with TestRunner(LlmAgent(name="shop", model=model, tools=[toolset])) as runner:
        names = [tool.name for tool in await toolset.get_tools()]
        await runner.run("hi")
    assert "load_mcp_resource" not in names and "add" in names
    assert "load_mcp_resource" not in model.requests[0].declared_function_names()
    assert "refund_policy" not in model.requests[0].system_instruction_text()


async def test_the_tool_answers_with_the_names_it_loads(stdio_params):
    tool = LoadMcpResourceTool(mcp_toolset=McpToolset(connection_params=stdio_params))
    assert tool.name == "load_mcp_resource" and tool.idempotent  # a read: safe to run again
    result = await tool.run_async(args={"resource_names": ["logo"]}, tool_context=None)  # type: ignore[arg-type]
    assert result["resource_names"] == ["logo"] and "again" in result["status"]
