"""assert_tool_calls: trajectory assertions on a real run, with messages that show the
difference."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, TestRunner, assert_tool_calls, function_call, tool_calls


def lookup(city: str) -> dict[str, Any]:
    """Looks a city up."""
    return {"city": city}


def book(city: str, nights: int) -> dict[str, Any]:
    """Books a hotel."""
    return {"booked": city, "nights": nights}


def planner(request: LlmRequest) -> Any:
    done = sum(1 for c in request.contents for p in c.parts or [] if p.function_response)
    if done == 0:
        return [
            function_call("lookup", {"city": "Oslo"}),
            function_call("lookup", {"city": "Rome"}),
        ]
    if done == 2:
        return function_call("book", {"city": "Rome", "nights": 2})
    return "Booked Rome for two nights."


@pytest.fixture
async def events() -> list[Any]:
    agent = LlmAgent(name="planner", model=FunctionModel(planner), tools=[lookup, book])
    return await TestRunner(agent).run("plan my trip")


async def test_the_three_match_kinds(events: list[Any]) -> None:
    assert [c.name for c in tool_calls(events)] == ["lookup", "lookup", "book"]
    assert_tool_calls(
        events,
        [
            ("lookup", {"city": "Oslo"}),
            ("lookup", {"city": "Rome"}),
            ("book", {"city": "Rome", "nights": 2}),
        ],
    )
    assert_tool_calls(events, [("book", {"city": "Rome", "nights": 2})], match="in_order")
    assert_tool_calls(
        events, [("lookup", {"city": "Rome"}), ("lookup", {"city": "Oslo"})], match="any_order"
    )
    assert_tool_calls(events, ["lookup", "lookup", "book"])  # names only
    assert_tool_calls(events, ["book"], match="any_order", agent="planner")


async def test_a_mismatch_says_what_differs(events: list[Any]) -> None:
    with pytest.raises(AssertionError) as failed:
        assert_tool_calls(
            events, [("lookup", {"city": "Oslo"}), ("book", {"city": "Oslo", "nights": 2})]
        )
    assert str(failed.value) == (
        "Tool calls do not match (exact): call 2: expected book(city='Oslo', nights=2), "
        "got lookup(city='Rome').\n"
        "  expected: lookup(city='Oslo'), book(city='Oslo', nights=2)\n"
        "  called:   lookup(city='Oslo'), lookup(city='Rome'), book(city='Rome', nights=2)"
    )
    with pytest.raises(AssertionError, match="book\\(city='Oslo'\\) not called in order"):
        assert_tool_calls(events, [("book", {"city": "Oslo"})], match="in_order")
    with pytest.raises(AssertionError, match="expected 2 tool calls, got 3"):
        assert_tool_calls(events, ["lookup", "lookup"])
    with pytest.raises(AssertionError, match="called:   none"):
        assert_tool_calls(events, ["lookup"], agent="someone_else")


async def test_mixing_names_and_arguments_is_refused(events: list[Any]) -> None:
    with pytest.raises(TypeError, match="all as names, or all with their arguments"):
        assert_tool_calls(events, ["lookup", ("lookup", {"city": "Rome"})])
