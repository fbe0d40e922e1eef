"""PlanReActPlanner's response rewriting and instruction, called directly."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.planners import PlanReActPlanner
from pyadk.planners.plan_re_act_planner import (
    ACTION_TAG,
    FINAL_ANSWER_TAG,
    PLANNING_TAG,
    REASONING_TAG,
    REPLANNING_TAG,
)
from pyadk.testing import function_call

planner = PlanReActPlanner()
CTX: Any = None  # PlanReActPlanner reads neither context


def text(value: str, thought: bool | None = None) -> types.Part:
    return types.Part(text=value, thought=thought)


def shape(parts: list[types.Part] | None) -> list[tuple[str, Any]]:
    assert parts is not None
    return [
        ("call", p.function_call.name)
        if p.function_call
        else ("thought" if p.thought else "text", p.text)
        for p in parts
    ]


def test_instruction_names_every_tag_and_is_the_same_every_time() -> None:
    instruction = planner.build_planning_instruction(CTX, CTX)
    for tag in (PLANNING_TAG, REPLANNING_TAG, REASONING_TAG, ACTION_TAG, FINAL_ANSWER_TAG):
        assert tag in instruction
    assert instruction == planner.build_planning_instruction(CTX, CTX)


def test_text_before_the_final_answer_tag_is_a_thought_without_tags() -> None:
    parts = [text(f"{PLANNING_TAG}1. think\n{REASONING_TAG}so{FINAL_ANSWER_TAG}Paris")]

    assert shape(planner.process_planning_response(CTX, parts)) == [
        ("thought", "1. think\nso"),
        ("text", "Paris"),
    ]


def test_the_last_final_answer_tag_splits() -> None:
    parts = [text(f"a{FINAL_ANSWER_TAG}b{FINAL_ANSWER_TAG}c")]

    assert shape(planner.process_planning_response(CTX, parts)) == [
        ("thought", f"a{FINAL_ANSWER_TAG}b"),
        ("text", "c"),
    ]


def test_an_answer_without_reasoning_or_reasoning_without_answer_gives_one_part() -> None:
    assert shape(planner.process_planning_response(CTX, [text(f"{FINAL_ANSWER_TAG}42")])) == [
        ("text", "42")
    ]
    assert shape(planner.process_planning_response(CTX, [text(f"plan{FINAL_ANSWER_TAG}")])) == [
        ("thought", "plan")
    ]


def test_a_part_starting_with_a_planning_tag_becomes_a_thought() -> None:
    for tag in (PLANNING_TAG, REPLANNING_TAG, REASONING_TAG, ACTION_TAG):
        parts = [text(f"{tag}step one {ACTION_TAG}")]
        assert shape(planner.process_planning_response(CTX, parts)) == [("thought", "step one ")]


def test_untagged_text_and_text_not_starting_with_a_tag_stay_as_they_are() -> None:
    plain = text("Just an answer.")
    indented = text(f"\n{PLANNING_TAG}plan")

    result = planner.process_planning_response(CTX, [plain, indented])

    assert result is not None
    assert result[0] is plain and result[1] is indented
    assert indented.text == f"\n{PLANNING_TAG}plan" and not indented.thought


def test_only_the_first_group_of_function_calls_is_kept() -> None:
    parts = [
        text(f"{PLANNING_TAG}look up"),
        function_call("a"),
        function_call("b"),
        text("said after the calls"),
        function_call("c"),
    ]

    assert shape(planner.process_planning_response(CTX, parts)) == [
        ("thought", "look up"),
        ("call", "a"),
        ("call", "b"),
    ]


def test_calls_without_a_name_are_dropped() -> None:
    parts = [function_call(""), text(f"{FINAL_ANSWER_TAG}done"), function_call("a")]

    assert shape(planner.process_planning_response(CTX, parts)) == [
        ("text", "done"),
        ("call", "a"),
    ]


def test_the_given_parts_are_not_changed() -> None:
    part = text(f"{PLANNING_TAG}plan")
    parts = [part]

    planner.process_planning_response(CTX, parts)

    assert parts == [part] and part.text == f"{PLANNING_TAG}plan" and part.thought is None


def test_no_parts_gives_none() -> None:
    assert planner.process_planning_response(CTX, []) is None
