"""LangchainTool: a LangChain tool (``langchain-core``) used as a pyadk tool.

Needs the ``langchain`` extra (``pip install 'pyadk[langchain]'``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pydantic

from pyadk import types
from pyadk.tools.function_declarations import (
    _format_error,
    build_function_declaration,
    schema_for_model,
    validate_arguments,
)
from pyadk.tools.function_tool import FunctionTool, _pool_config, run_off_loop

try:
    from langchain_core.tools import BaseTool as LangchainBaseTool
    from langchain_core.tools import StructuredTool, Tool, ToolException
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "LangchainTool needs langchain-core: pip install 'pyadk[langchain]'"
    ) from error

if TYPE_CHECKING:
    from pyadk.tools.tool_context import ToolContext

_LANGCHAIN_HIDDEN = ("run_manager", "callbacks")
"""Parameters of a LangChain tool's function that LangChain fills, never the model."""


class LangchainTool(FunctionTool):
    """Wraps a LangChain tool so that an agent's model can call it.

    The declaration comes from the tool: its ``name`` and ``description`` (either may be
    overridden) and, for parameters, its pydantic ``args_schema`` (the fields the model
    fills: LangChain's ``tool_call_schema``), a JSON-schema ``args_schema``, or its
    ``args`` when it has no schema (a single-input ``Tool`` takes ``tool_input``).

    A call is validated against that schema first: missing or wrongly typed arguments
    come back to the model as an ``{"error": ...}`` result, as for a :class:`FunctionTool`.
    The tool then runs through LangChain (``ainvoke`` when it has an async
    implementation; otherwise ``invoke`` in a worker thread, or on
    ``RunConfig.tool_thread_pool_config``'s pool, so that it never blocks the event
    loop). A ``ToolException`` it raises becomes an ``{"error": ...}`` result the model
    sees; any other exception goes the way of every tool's errors
    (``on_tool_error_callback``, ``tool_retry``, else the run fails). A tool with
    ``return_direct=True`` ends the agent's step with its result (``skip_summarization``).

    An object that is not a LangChain ``BaseTool`` but has a ``run`` (or ``_run``)
    method is accepted too, as google-adk does: it is declared from that method's
    signature and docstring, like a function tool.

    Args:
        tool: the LangChain tool.
        name: the name the model sees (default: the tool's name).
        description: the description the model sees (default: the tool's description).
    """

    def __init__(
        self, tool: LangchainBaseTool | Any, name: str | None = None, description: str | None = None
    ) -> None:
        func = _function_of(tool) if isinstance(tool, LangchainBaseTool) else _run_method_of(tool)
        if func is None:
            raise ValueError(
                "LangchainTool needs a LangChain tool (a langchain_core.tools.BaseTool, "
                "e.g. made with @tool or StructuredTool.from_function) or an object with a "
                f"'run' or '_run' method; got {type(tool).__qualname__}."
            )
        super().__init__(func, name=name or getattr(tool, "name", None) or None)
        self._ignore_params.extend(_LANGCHAIN_HIDDEN)
        self._is_async_gen = False  # never a streaming tool: the call goes through LangChain
        self._langchain_tool = tool
        self._return_direct = bool(getattr(tool, "return_direct", False))
        tool_description = getattr(tool, "description", None)
        self.description = description or (
            tool_description if isinstance(tool_description, str) else ""
        )
        self._required: list[str] = []
        self._properties: set[str] | None = None  # None: pass every argument on

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        if self._declaration is not None:
            return self._declaration
        tool = self._langchain_tool
        if not isinstance(tool, LangchainBaseTool):  # an object with a run method
            declaration = build_function_declaration(
                self.func, ignore_params=self._ignore_params, name=self.name
            )
            declaration.description = self._description or declaration.description
            self._declaration = declaration
            return declaration
        try:
            parameters, json_schema = self._parameters_of(tool)
        except Exception as error:
            raise ValueError(
                f"Cannot declare LangChain tool {self.name!r}: its argument schema has no "
                f"function-declaration form ({error})."
            ) from error
        self._declaration = types.FunctionDeclaration(
            name=self.name,
            description=self._description,
            parameters=parameters,
            parameters_json_schema=json_schema,
        )
        return self._declaration

    def _parameters_of(
        self, tool: LangchainBaseTool
    ) -> tuple[types.Schema | None, dict[str, Any] | None]:
        """The parameters as a pyadk Schema, or else as JSON Schema; records the names of
        the properties and the required ones (checked before each call)."""
        if tool.args_schema is not None:
            schema = tool.tool_call_schema  # the args_schema without LangChain-injected args
            if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
                try:
                    parameters = schema_for_model(schema)
                except ValueError:  # a field type with no Schema form: keep it as JSON Schema
                    return None, self._record(_strip(schema.model_json_schema()))
                parameters.description = None  # the tool's description says it already
                self._properties = set(parameters.properties or {})
                self._required = list(parameters.required or [])
                return (parameters if parameters.properties else None), None
            if isinstance(schema, dict):
                return None, self._record(_strip(schema))
        properties = dict(tool.args)  # no (usable) schema: LangChain's view of the arguments
        required = [key for key, prop in properties.items() if "default" not in prop]
        json_schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            json_schema["required"] = required
        return None, self._record(json_schema)

    def _record(self, json_schema: dict[str, Any]) -> dict[str, Any]:
        properties = json_schema.get("properties")
        if isinstance(properties, dict):
            self._properties = set(properties)
        required = json_schema.get("required")
        self._required = [str(key) for key in required] if isinstance(required, list) else []
        return json_schema

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        args = args or {}
        try:
            if isinstance(self._langchain_tool, LangchainBaseTool):
                result = await self._run_langchain_tool(self._langchain_tool, args, tool_context)
            else:
                result = await self._run_method(args, tool_context)
        except ToolException as error:  # LangChain's "tell the model what went wrong"
            return {"error": f"Invoking `{self.name}()` failed: {error or type(error).__name__}"}
        if self._return_direct and not (isinstance(result, dict) and result.get("error")):
            tool_context.actions.skip_summarization = True
        return result

    async def _run_langchain_tool(
        self, tool: LangchainBaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> Any:
        self._get_declaration()  # records the properties and the required arguments
        errors = self._argument_errors(tool, args)
        if errors:
            return _bad_arguments(self.name, errors)
        if self._properties is not None:
            args = {key: value for key, value in args.items() if key in self._properties}
        if _has_async_implementation(tool):
            return await tool.ainvoke(args)
        return await run_off_loop(_pool_config(tool_context), tool.invoke, input=args)

    def _argument_errors(self, tool: LangchainBaseTool, args: dict[str, Any]) -> list[str]:
        schema = tool.tool_call_schema if tool.args_schema is not None else None
        if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
            try:
                schema.model_validate(args)
            except pydantic.ValidationError as error:
                return [_format_error(detail) for detail in error.errors()]
            return []
        return [f"missing mandatory parameter '{key}'" for key in self._required if key not in args]

    async def _run_method(self, args: dict[str, Any], tool_context: ToolContext) -> Any:
        kwargs, errors = validate_arguments(self.func, args, ignore_params=self._ignore_params)
        if errors:
            return _bad_arguments(self.name, errors)
        if inspect.iscoroutinefunction(self.func):
            return await self.func(**kwargs)
        result = await run_off_loop(_pool_config(tool_context), self.func, **kwargs)
        return await result if inspect.isawaitable(result) else result


def _bad_arguments(name: str, errors: list[str]) -> dict[str, str]:
    return {
        "error": f"Invoking `{name}()` failed: "
        + "; ".join(errors)
        + ". Fix the arguments and call the tool again."
    }


def _strip(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema of the arguments without its title and description (the tool's)."""
    return {key: value for key, value in schema.items() if key not in ("title", "description")}


def _function_of(tool: LangchainBaseTool) -> Callable[..., Any]:
    """The Python function behind a LangChain tool (``FunctionTool.func``)."""
    candidates: list[Any] = []
    if isinstance(tool, StructuredTool | Tool):
        candidates += [tool.func, tool.coroutine]
    candidates += [tool._run, tool.invoke]
    for candidate in candidates:
        if callable(candidate):
            try:
                inspect.signature(candidate)
            except (TypeError, ValueError):  # e.g. a builtin: FunctionTool needs a signature
                continue
            return candidate
    return tool.invoke


def _run_method_of(tool: Any) -> Callable[..., Any] | None:
    for attribute in ("_run", "run"):
        method = getattr(tool, attribute, None)
        if callable(method):
            return method
    return None


def _has_async_implementation(tool: LangchainBaseTool) -> bool:
    """Whether the tool runs natively async (else LangChain's ``ainvoke`` would only run
    its sync code in a thread of its own choosing)."""
    if isinstance(tool, StructuredTool | Tool):
        return tool.coroutine is not None
    cls = type(tool)
    return cls._arun is not LangchainBaseTool._arun or cls.ainvoke is not LangchainBaseTool.ainvoke
