"""LangchainTool: real langchain-core tools declared to and called by a scripted model."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import CallbackManagerForToolRun
from langchain_core.tools import BaseTool as LangchainBaseTool
from langchain_core.tools import StructuredTool, Tool, ToolException, tool
from pydantic import BaseModel, Field

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig
from pyadk.agents.run_config import ToolThreadPoolConfig
from pyadk.models._schemas import parameters_schema
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import BaseTool, FunctionTool, LangchainTool, ToolContext


@tool(parse_docstring=True)
def convert_currency(amount: float, currency: str = "EUR") -> str:
    """Converts an amount of US dollars to another currency.

    Args:
        amount: how many US dollars.
        currency: the ISO code of the target currency.
    """
    return f"{amount * 0.5:.2f} {currency}"


class SearchArgs(BaseModel):
    query: str = Field(description="what to look for")
    limit: int = Field(default=3, description="how many results at most")


class LibrarySearch(LangchainBaseTool):
    name: str = "library_search"
    description: str = "Searches the library catalogue."
    args_schema: type[BaseModel] = SearchArgs

    def _run(
        self, query: str, limit: int = 3, run_manager: CallbackManagerForToolRun | None = None
    ) -> list[str]:
        return [f"{query} #{index}" for index in range(1, limit + 1)]


def _declaration(model: ScriptedModel, name: str, request: int = 0) -> types.FunctionDeclaration:
    for group in model.requests[request].config.tools or []:
        for declaration in group.function_declarations or []:
            if declaration.name == name:
                return declaration
    raise AssertionError(f"{name} was not declared")


def _responses(event: Any) -> list[tuple[str | None, dict[str, Any] | None]]:
    return [(r.name, r.response) for r in event.get_function_responses()]


async def test_a_tool_decorated_function_is_declared_and_called_with_the_models_arguments() -> None:
    model = ScriptedModel(
        [function_call("convert_currency", {"amount": "10", "currency": "GBP"}), "5 pounds."]
    )
    runner = TestRunner(LlmAgent(name="bank", model=model, tools=[LangchainTool(convert_currency)]))

    events = await runner.run("10 dollars in pounds?")

    declaration = _declaration(model, "convert_currency")
    assert declaration.description == "Converts an amount of US dollars to another currency."
    params = declaration.parameters
    assert params is not None and params.type == types.Type.OBJECT
    assert list(params.properties or {}) == ["amount", "currency"]
    assert params.required == ["amount"]
    assert params.properties["amount"].type == types.Type.NUMBER
    assert params.properties["amount"].description == "how many US dollars."
    assert params.properties["currency"].default == "EUR"
    assert simplify_events(events) == [
        ("bank", "call:convert_currency({'amount': '10', 'currency': 'GBP'})"),
        ("bank", "response:convert_currency({'result': '5.00 GBP'})"),  # "10" became 10.0
        ("bank", "5 pounds."),
    ]
    assert model.requests[1].contents[-1].parts[0].function_response.response == {
        "result": "5.00 GBP"
    }


async def test_structured_tool_with_an_args_schema_and_overridden_name_and_description() -> None:
    threads: list[int] = []

    def lookup(query: str, limit: int = 3) -> dict[str, Any]:
        threads.append(threading.get_ident())
        return {"hits": [query] * limit}

    structured = StructuredTool.from_function(
        func=lookup, name="lookup", description="Looks things up.", args_schema=SearchArgs
    )
    wrapped = LangchainTool(structured, name="find", description="Finds books by title.")
    assert (wrapped.name, wrapped.description) == ("find", "Finds books by title.")
    assert isinstance(wrapped, FunctionTool)  # as google-adk's LangchainTool is

    model = ScriptedModel([function_call("find", {"query": "Dune", "limit": 2}), "Found it."])
    events = await TestRunner(LlmAgent(name="lib", model=model, tools=[wrapped])).run("Dune?")

    declaration = _declaration(model, "find")
    assert declaration.description == "Finds books by title."
    assert model.requests[0].declared_function_names() == ["find"]
    params = declaration.parameters
    assert params is not None and params.required == ["query"]
    assert params.properties["query"].description == "what to look for"
    assert params.properties["limit"].default == 3
    assert _responses(events[1]) == [("find", {"hits": ["Dune", "Dune"]})]
    # a sync LangChain tool runs in a worker thread: the event loop is never blocked
    assert threads and threads[0] != threading.get_ident()


async def test_a_base_tool_subclass_is_declared_from_its_args_schema_without_run_manager() -> None:
    model = ScriptedModel([function_call("library_search", {"query": "Dune"}), "Three copies."])
    events = await TestRunner(
        LlmAgent(name="lib", model=model, tools=[LangchainTool(LibrarySearch())])
    ).run("Dune?")

    declaration = _declaration(model, "library_search")
    assert declaration.description == "Searches the library catalogue."
    assert list(declaration.parameters.properties or {}) == ["query", "limit"]
    assert declaration.parameters.required == ["query"]
    assert _responses(events[1]) == [
        ("library_search", {"result": ["Dune #1", "Dune #2", "Dune #3"]})
    ]


async def test_an_async_tool_is_awaited_on_the_event_loop() -> None:
    threads: list[int] = []

    @tool
    async def fetch_weather(city: str) -> dict[str, Any]:
        """Tomorrow's weather in a city."""
        threads.append(threading.get_ident())
        return {"city": city, "sky": "sunny"}

    model = ScriptedModel([function_call("fetch_weather", {"city": "Lisbon"}), "Sunny."])
    events = await TestRunner(
        LlmAgent(name="w", model=model, tools=[LangchainTool(fetch_weather)])
    ).run("Weather?")

    assert _declaration(model, "fetch_weather").parameters.required == ["city"]
    assert _responses(events[1]) == [("fetch_weather", {"city": "Lisbon", "sky": "sunny"})]
    assert threads == [threading.get_ident()]  # awaited, not sent to a thread


async def test_a_sync_tool_runs_on_the_runs_tool_thread_pool() -> None:
    names: list[str] = []

    def where() -> str:
        """Says which thread runs it."""
        names.append(threading.current_thread().name)
        return "here"

    model = ScriptedModel([function_call("where"), "ok"])
    agent = LlmAgent(
        name="a", model=model, tools=[LangchainTool(StructuredTool.from_function(where))]
    )
    config = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))
    events = await TestRunner(agent).run("go", run_config=config)

    assert _responses(events[1]) == [("where", {"result": "here"})]
    assert len(names) == 1 and names[0] != threading.current_thread().name


async def test_a_single_input_tool_without_schema_takes_tool_input() -> None:
    shout = Tool(name="shout", func=lambda text: text.upper(), description="Shouts the text.")
    model = ScriptedModel([function_call("shout", {"tool_input": "hello"}), "HELLO"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[LangchainTool(shout)])).run(
        "go"
    )

    assert parameters_schema(_declaration(model, "shout")) == {
        "type": "object",
        "properties": {"tool_input": {"type": "string"}},
        "required": ["tool_input"],
    }
    assert _responses(events[1]) == [("shout", {"result": "HELLO"})]


async def test_a_json_schema_args_schema_is_declared_as_is() -> None:
    schema = {
        "type": "object",
        "title": "greet",
        "properties": {"who": {"type": "string", "description": "whom to greet"}},
        "required": ["who"],
    }
    greet = StructuredTool.from_function(
        func=lambda who: f"Hello, {who}!", name="greet", description="Greets.", args_schema=schema
    )
    model = ScriptedModel([function_call("greet", {}), function_call("greet", {"who": "Ada"}), "."])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[LangchainTool(greet)])).run(
        "go"
    )

    declaration = _declaration(model, "greet")
    assert declaration.parameters_json_schema == {
        "type": "object",
        "properties": {"who": {"type": "string", "description": "whom to greet"}},
        "required": ["who"],
    }
    error = _responses(events[1])[0][1]
    assert error is not None and "missing mandatory parameter 'who'" in error["error"]
    assert _responses(events[3]) == [("greet", {"result": "Hello, Ada!"})]


async def test_bad_arguments_come_back_to_the_model_as_an_error_result() -> None:
    model = ScriptedModel([function_call("convert_currency", {"amount": "a lot"}), "Which amount?"])
    events = await TestRunner(
        LlmAgent(name="bank", model=model, tools=[LangchainTool(convert_currency)])
    ).run("go")

    name, response = _responses(events[1])[0]
    assert name == "convert_currency" and response is not None
    assert response["error"].startswith("Invoking `convert_currency()` failed: parameter 'amount'")
    assert response["error"].endswith("Fix the arguments and call the tool again.")
    assert events[-1].content.text == "Which amount?"


async def test_a_tool_exception_becomes_an_error_result_the_model_sees() -> None:
    @tool
    def book_flight(destination: str) -> str:
        """Books a flight."""
        raise ToolException(f"no flights to {destination} tomorrow")

    model = ScriptedModel(
        [function_call("book_flight", {"destination": "Mars"}), "There are no flights."]
    )
    events = await TestRunner(
        LlmAgent(name="travel", model=model, tools=[LangchainTool(book_flight)])
    ).run("Book me a flight to Mars.")

    expected = {"error": "Invoking `book_flight()` failed: no flights to Mars tomorrow"}
    assert _responses(events[1]) == [("book_flight", expected)]
    assert model.requests[1].contents[-1].parts[0].function_response.response == expected
    assert events[-1].content.text == "There are no flights."


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"tool failed: {reason}")


async def test_another_exception_goes_to_on_tool_error_callback_like_a_function_tools() -> None:
    seen: list[tuple[str, str]] = []

    def on_error(
        *, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any]:
        seen.append((tool.name, str(error)))
        return {"error": f"{tool.name} is unavailable"}

    model = ScriptedModel([function_call("explode", {"reason": "disk full"}), "Sorry."])
    agent = LlmAgent(
        name="a", model=model, tools=[LangchainTool(explode)], on_tool_error_callback=on_error
    )
    events = await TestRunner(agent).run("go")

    assert seen == [("explode", "tool failed: disk full")]
    assert _responses(events[1]) == [("explode", {"error": "explode is unavailable"})]

    unhandled = ScriptedModel([function_call("explode", {"reason": "x"})])
    runner = TestRunner(LlmAgent(name="b", model=unhandled, tools=[LangchainTool(explode)]))
    with pytest.raises(RuntimeError, match="tool failed: x"):
        await runner.run("go")


async def test_a_return_direct_tool_ends_the_step_with_its_result() -> None:
    @tool(return_direct=True)
    def show_balance() -> str:
        """Shows the balance."""
        return "42 EUR"

    model = ScriptedModel([function_call("show_balance")])
    events = await TestRunner(
        LlmAgent(name="a", model=model, tools=[LangchainTool(show_balance)])
    ).run("go")

    assert simplify_events(events) == [
        ("a", "call:show_balance({})"),
        ("a", "response:show_balance({'result': '42 EUR'})"),
    ]
    assert events[-1].is_final_response() and model.call_count == 1


def test_an_object_that_is_not_a_langchain_tool_is_refused() -> None:
    for not_a_tool in (42, "search", object()):
        with pytest.raises(ValueError, match="LangchainTool needs a LangChain tool"):
            LangchainTool(not_a_tool)


async def test_an_object_with_a_run_method_is_accepted_as_google_adk_does() -> None:
    class Legacy:
        def run(self, city: str) -> str:
            """Looks up a city's time zone."""
            return f"{city}: UTC+1"

    wrapped = LangchainTool(Legacy(), name="timezone")
    model = ScriptedModel([function_call("timezone", {"city": "Paris"}), "UTC+1"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[wrapped])).run("go")

    declaration = _declaration(model, "timezone")
    assert declaration.description == "Looks up a city's time zone."
    assert declaration.parameters.required == ["city"]
    assert _responses(events[1]) == [("timezone", {"result": "Paris: UTC+1"})]


def _run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_importing_the_tools_package_does_not_load_langchain() -> None:
    result = _run_python(
        "import sys\nimport pyadk.tools\nfrom pyadk.agents import LlmAgent\n"
        "print('langchain_core' in sys.modules)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_without_langchain_core_the_import_error_names_the_extra() -> None:
    result = _run_python(
        "import sys\nsys.modules['langchain_core'] = None\n"
        "try:\n    from pyadk.tools import LangchainTool\n"
        "except ImportError as error:\n    print(error)\n"
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'pyadk[langchain]'" in result.stdout
