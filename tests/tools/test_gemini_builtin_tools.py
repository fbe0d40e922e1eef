"""google_search and url_context: Gemini built-in tools added to the request."""

from __future__ import annotations

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, TestRunner
from pyadk.tools import FunctionTool, google_search, url_context
from pyadk.tools.google_search_tool import GoogleSearchTool
from pyadk.utils.model_names import is_gemini_model


class GeminiNamedModel(ScriptedModel):
    model: str = "gemini-2.5-flash"


def lookup(city: str) -> dict:
    """Looks a city up."""
    return {"city": city}


async def test_the_tools_go_to_the_request_beside_function_tools() -> None:
    model = GeminiNamedModel(["Found it."])
    agent = LlmAgent(name="a", model=model, tools=[google_search, url_context, lookup])
    await TestRunner(agent).run("Search the web.")
    [request] = model.requests
    tools = request.config.tools or []
    assert [t.google_search for t in tools if t.google_search is not None] == [{}]
    assert [t.url_context for t in tools if t.url_context is not None] == [{}]
    assert request.declared_function_names() == ["lookup"]
    assert set(request.tools_dict) == {"lookup"}  # the built-ins are not callable here


async def test_another_model_is_refused_unless_the_check_is_disabled(monkeypatch) -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(["x"]), tools=[google_search])
    with pytest.raises(ValueError, match="Google search tool is not supported for model scripted"):
        await TestRunner(agent).run("hi")
    monkeypatch.setenv("ADK_DISABLE_GEMINI_MODEL_ID_CHECK", "1")
    model = ScriptedModel(["ok"])
    await TestRunner(LlmAgent(name="b", model=model, tools=[url_context])).run("hi")
    assert model.requests[0].config.tools[0].url_context == {}


async def test_google_search_can_name_the_model_it_needs() -> None:
    model = ScriptedModel(["ok"])
    tool = GoogleSearchTool(model="gemini-2.5-pro")
    await TestRunner(LlmAgent(name="a", model=model, tools=[tool])).run("hi")
    assert model.requests[0].model == "gemini-2.5-pro"
    assert model.requests[0].config.tools == [types.Tool(google_search={})]


def test_gemini_model_names() -> None:
    gemini = [
        "gemini-2.5-flash",
        "models/gemini-2.0-pro",
        "projects/p/locations/us/publishers/google/models/gemini-2.5-pro",
        "gemini/gemini-2.5-flash",
        "openrouter/google/gemini-2.5-pro:online",
        "apigee/gemini-2.5-flash",
    ]
    others = ["gpt-4o", "claude-sonnet-4", "projects/x", "local", "", None, "my-gemini-2"]
    assert all(is_gemini_model(m) for m in gemini)
    assert not any(is_gemini_model(m) for m in others)
    assert FunctionTool(lookup).name == "lookup"
