"""Deterministic stand-ins for the structured workflow's model, and fake generators.

Also loaded by reference (``<this file>:create_model``) in bench worker processes.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from pyadk.agents import BaseAgent, InvocationContext
from pyadk.events import Event, EventActions
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call
from pyadk.types import ModelContent

HERE = Path(__file__).resolve()
MODEL_REF = f"{HERE}:create_model"
GENERATOR_REF = f"{HERE}:create_code_generator"

ADD_AGENT = '''from pyadk.agents import LlmAgent


def add(a: int, b: int) -> dict:
    """Adds two numbers."""
    return {"result": a + b}


root_agent = LlmAgent(name="adder", instruction="Add numbers with add.", tools=[add])
'''
GREETER_AGENT = """from pyadk.agents import LlmAgent

root_agent = LlmAgent(name="greeter", instruction="Greet the user politely.")
"""
BROKEN_AGENT = """from pyadk.agents import LlmAgent

root_agent = LlmAgent(name="adder", instruction="Add.", tools=[missing_tool])
"""


def fenced(code: str) -> str:
    """A candidate answer: a sentence of rationale, then the code block."""
    return f"Here is the agent.\n```python\n{code}```"


def agent_name(request: LlmRequest) -> str:
    found = re.search(r'Your name is "(\w+)"', request.system_instruction_text())
    return found.group(1) if found else ""


def tool_results(request: LlmRequest) -> list[Any]:
    """Function responses in the request (the current step's tool results)."""
    return [
        p.function_response for c in request.contents for p in c.parts or [] if p.function_response
    ]


class WorkflowModel:
    """Answers each step of the workflow as a well-behaved model would.

    ``candidates[i]`` is the CandidateCreator's answer in iteration i (the last one
    repeats); ``approvals[i]`` whether the RunAnalysisAgent calls exit_loop then.
    """

    def __init__(
        self,
        candidates: Sequence[str] = (fenced(ADD_AGENT),),
        approvals: Sequence[bool] = (True,),
        modules: Sequence[str] = ("pyadk.agents.llm_agent", "pyadk.tools.function_tool"),
        test_prompt: str = "Add 2 and 3.",
    ) -> None:
        self.candidates = list(candidates)
        self.approvals = list(approvals)
        self.modules = list(modules)
        self.test_prompt = test_prompt
        self.iteration = {"CandidateCreator": 0, "RunAnalysisAgent": 0}

    def __call__(self, request: LlmRequest) -> Any:
        name = agent_name(request)
        results = tool_results(request)
        if name == "PromptSanitizerAgent":
            return "Build an agent that adds two numbers with a tool."
        if name == "ModuleSelectorAgent":
            return self._select(request, results)
        if name == "Planner":
            if not results:
                return function_call("save_implementation_plan", {"plan": "1. add tool 2. agent"})
            if len(results) == 1:
                args = {"test_prompt": self.test_prompt, "expected_behavior": "the sum"}
                return function_call("save_verification_plan", args)
            return "planned"
        if name == "CandidateCreator":
            index = min(self.iteration[name], len(self.candidates) - 1)
            self.iteration[name] += 1
            return self.candidates[index]
        if name == "RunAnalysisAgent":
            if results:
                return (
                    "Accepted." if results[-1].response.get("status") != "rejected" else "Fix it."
                )
            index = min(self.iteration[name], len(self.approvals) - 1)
            self.iteration[name] += 1
            if self.approvals[index]:
                return function_call("exit_loop")
            return "The run failed: define the tool before using it."
        raise AssertionError(f"unexpected agent {name!r}")

    def _select(self, request: LlmRequest, results: list[Any]) -> Any:
        searching = "run_shell_command" in request.declared_function_names()
        if searching and not results:
            return function_call(
                "run_shell_command", {"command": "grep -rln 'class LlmAgent' adk_source/pyadk"}
            )
        if not any(r.name == "save_relevant_modules" for r in results):
            return function_call("save_relevant_modules", {"modules": self.modules})
        return "done"


def create_model(**options: Any) -> FunctionModel:
    """A FunctionModel driven by a WorkflowModel (used by reference in bench workers)."""
    return FunctionModel(WorkflowModel(**options), model="workflow-fake")


class CodeGenerator(BaseAgent):
    """A code-based generator: answers with the greeter for 'greeter' requests, else the
    adder (no model; for fast bench tests)."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        request = ctx.user_content.parts[0].text if ctx.user_content else ""
        code = GREETER_AGENT if "greeter" in (request or "") else ADD_AGENT
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=ModelContent(fenced(code)),
            actions=EventActions(),
        )


def create_code_generator(model: Any = None, **options: Any) -> CodeGenerator:
    return CodeGenerator(name="code_generator")


class HangingGenerator(BaseAgent):
    """Waits forever (asynchronously): the per-task timeout must end it."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        import asyncio

        await asyncio.Event().wait()
        yield  # pragma: no cover


class BlockingGenerator(BaseAgent):
    """Blocks the event loop: only killing the worker process ends it."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        import time

        time.sleep(3600)
        yield  # pragma: no cover


class ChattyGenerator(BaseAgent):
    """Answers without any code."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        yield Event(
            invocation_id=ctx.invocation_id, author=self.name, content=ModelContent("No idea.")
        )


def create_hanging_generator(model: Any = None) -> HangingGenerator:
    return HangingGenerator(name="hanging")


def create_blocking_generator(model: Any = None) -> BlockingGenerator:
    return BlockingGenerator(name="blocking")


def create_chatty_generator(model: Any = None) -> ChattyGenerator:
    return ChattyGenerator(name="chatty")


code_agent = CodeGenerator(name="code_agent")
"""An agent instance (not a factory): the benchmark runs it as it is."""
NOT_A_GENERATOR = 42


def create_nothing(model: Any = None) -> None:
    """A factory that returns no agent."""
    return None


def ref(name: str) -> str:
    """The reference of a factory of this file."""
    return f"{HERE}:{name}"
