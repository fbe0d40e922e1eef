"""A deterministic stand-in model that follows this example's instructions offline."""

from __future__ import annotations

import re
from typing import Any

from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call

_NAME = re.compile(r'Your name is "(\w+)"')
_STATUS = re.compile(r"Agent ([ABC]) -> (\w+)")
_SAID = {"failure": "failed", "timed_out": "timed out", "skipped": "was skipped"}


def _reply(request: LlmRequest) -> Any:
    instruction = request.system_instruction_text()
    found = _NAME.search(instruction)
    name = found.group(1) if found else ""
    if name == "AgentD":
        statuses = dict(_STATUS.findall(instruction))
        said = [f"Agent {x} {_SAID.get(statuses.get(x, ''), 'succeeded')}" for x in "ABC"]
        return ", ".join(said) + ", D completed."
    if name == "AgentA":
        last = request.contents[-1]
        result = next((p.function_response for p in last.parts or [] if p.function_response), None)
        if result is None:
            return function_call(request.declared_function_names()[0], {})
        return f"The tool answered: {(result.response or {}).get('message', 'done')}."
    return f"Agent {name[-1:]} running primary task"


def create_offline_model() -> FunctionModel:
    """The offline stand-in model."""
    return FunctionModel(_reply, model="poc6-policies-offline")
