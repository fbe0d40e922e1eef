"""An agent whose ``pay`` tool needs approval, shared by the UI approval tests."""

from __future__ import annotations

from typing import Any

from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, Stream, function_call
from pyadk.tools import FunctionTool


class Payments:
    """``pay`` needs approval and records what really ran; the model asks to pay 900
    (after saying ``preface``, when given), then answers from what the tool returned,
    in two chunks when streaming."""

    def __init__(self, preface: str | None = None) -> None:
        self.preface = preface
        self.paid: list[int] = []

    def pay(self, amount: int) -> dict:
        """Pays an invoice.

        Args:
          amount: euros.
        """
        self.paid.append(amount)
        return {"status": "paid", "amount": amount}

    def reply(self, request: LlmRequest) -> Any:
        response = request.contents[-1].parts[0].function_response
        if response is None:
            call = function_call("pay", {"amount": 900})
            return [self.preface, call] if self.preface else call
        if "error" in response.response:
            return Stream(["I did not pay. ", "You rejected it."])
        return Stream([f"Paid {response.response['amount']} euros. ", "Thank you."])

    def agent(self) -> LlmAgent:
        tool = FunctionTool(self.pay, require_confirmation=True)
        return LlmAgent(name="payments", model=FunctionModel(self.reply), tools=[tool])
