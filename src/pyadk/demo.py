"""A runnable demo: a calculator agent on an offline rule-based model.

Run it with ``python -m pyadk.demo``. No API key and no network are needed: the model
is a small deterministic :class:`~pyadk.testing.FunctionModel` that calls the tools
for arithmetic questions and summarises their results, so the whole pipeline (flow,
tool calls, callbacks, output_key, session state) runs for real.
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

from pyadk import types
from pyadk.agents import LlmAgent
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


def build_agent() -> LlmAgent:
    """The demo's calculator agent."""
    return LlmAgent(
        name="calculator",
        description="Adds and multiplies numbers.",
        model=FunctionModel(demo_model_reply, model="pyadk-demo"),
        instruction="You are a calculator. Use the tools for arithmetic.",
        tools=[add, multiply],
        output_key="last_answer",
    )


async def main(questions: list[str]) -> None:
    """Runs the demo conversation and prints every event."""
    runner = InMemoryRunner(build_agent(), app_name="demo")
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
    asked = sys.argv[1:] or ["What is 6 * 7?", "And 12.5 + 30?", "Hello!"]
    asyncio.run(main(asked))
