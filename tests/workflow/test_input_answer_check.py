"""An answer to a workflow's input request the session does not hold is refused before
the message is stored, as answers to approvals and credentials are."""

from __future__ import annotations

import pytest

from pyadk import types
from pyadk.testing import TestRunner
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    InputAnswerError,
    RequestInput,
    Workflow,
)


def answer(request_id: str, value: object) -> types.Content:
    response = types.FunctionResponse(
        id=request_id, name=REQUEST_INPUT_FUNCTION_CALL_NAME, response={"result": value}
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def test_an_answer_to_an_unknown_request_is_refused_and_nothing_is_stored() -> None:
    booked: list[int] = []

    def seats(node_input: object) -> RequestInput:
        return RequestInput(interrupt_id="seats", message="How many?", response_schema=int)

    def book(node_input: int) -> str:
        booked.append(node_input)
        return f"booked {node_input}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, seats, book)]))
    await runner.run("book")
    stored = len((await runner.session()).events)

    with pytest.raises(InputAnswerError, match="No input request 'chairs' in this session"):
        await runner.run(answer("chairs", 2))

    assert len((await runner.session()).events) == stored  # the message was not stored
    await runner.run(answer("seats", 2))  # the real request still waits
    assert booked == [2]
