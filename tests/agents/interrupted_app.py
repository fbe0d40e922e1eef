"""A payment workflow used by the resume tests, in the test process and in a child
process that is killed mid-payment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import FunctionTool


def said(log: list[str], name: str, text: str) -> LlmAgent:
    """An agent that answers ``text`` and logs that it was called."""

    def reply(request: LlmRequest) -> str:
        log.append(name)
        return text

    return LlmAgent(name=name, model=FunctionModel(reply))


def payer(
    log: list[str], pay: Callable[..., Any], *, idempotent: bool = False, name: str = "payer"
) -> LlmAgent:
    """An agent that calls ``pay(amount=500)`` and then reports the result."""

    def reply(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[0].function_response
        if last is not None:
            log.append(f"{name} saw {last.response}")
            return f"{name} done"
        log.append(name)
        return function_call("pay", {"amount": 500})

    tool = FunctionTool(pay, name="pay", idempotent=idempotent)
    return LlmAgent(name=name, model=FunctionModel(reply), tools=[tool])


def workflow(log: list[str], pay: Callable[..., Any], **kwargs: Any) -> SequentialAgent:
    """prepare -> payer -> receipt."""
    return SequentialAgent(
        name="checkout",
        sub_agents=[
            said(log, "prepare", "order ready"),
            payer(log, pay, **kwargs),
            said(log, "receipt", "receipt sent"),
        ],
    )
