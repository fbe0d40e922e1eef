"""A deterministic stand-in for an LLM that follows this PoC's instructions.

Used as the default model when pyadk has no other default (no key, no network). It
reads what the framework really sends: the agent's identity and instruction (with the
injected outcomes for Agent D), the declared tools and the tool results.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call

_NAME = re.compile(r'Your name is "(\w+)"')
_OUTCOME = re.compile(r"Agent ([ABC]) -> (\{.*?\})(?=, Agent [ABC] ->|\.\n|\.$|\n)", re.DOTALL)
_VERBS = {"success": "succeeded", "failure": "failed", "skipped": "was skipped"}


def _reply(request: LlmRequest) -> Any:
    instruction = request.system_instruction_text()
    match = _NAME.search(instruction)
    name = match.group(1) if match else ""
    if name == "AgentA":
        return _agent_a(request)
    if name in ("AgentB", "AgentC"):
        letter = name[-1]
        return json.dumps({"status": "success", "message": f"Agent {letter} running primary task"})
    if name == "AgentD":
        return _summary(instruction)
    return "I have no instructions for this agent."


def _agent_a(request: LlmRequest) -> Any:
    last = request.contents[-1] if request.contents else None
    for part in (last.parts or []) if last else []:
        if part.function_response is not None:
            result = part.function_response.response or {}
            if result.get("status") == "error":
                message = f"Tool failed: {result.get('message', 'unknown error')}"
                return json.dumps({"status": "failure", "message": message})
            return json.dumps(
                {"status": "success", "message": "Task completed", "result": result.get("result")}
            )
    tools = [n for n in request.declared_function_names() if n != "transfer_to_agent"]
    return function_call(tools[0], {})


def _summary(instruction: str) -> str:
    statuses: dict[str, str] = {}
    for letter, raw in _OUTCOME.findall(instruction):
        try:
            statuses[letter] = str(json.loads(raw).get("status", "unknown"))
        except json.JSONDecodeError:
            statuses[letter] = "unknown"
    described = [
        f"Agent {letter} {_VERBS.get(statuses.get(letter, ''), 'has an unknown outcome')}"
        for letter in "ABC"
    ]
    return ", ".join(described) + ", D completed."


def create_offline_model() -> FunctionModel:
    """The offline stand-in model."""
    return FunctionModel(_reply, model="poc6-offline")
