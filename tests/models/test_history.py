"""History clean-up shared by the OpenAI-style and Anthropic adapters."""

from __future__ import annotations

from pyadk import types
from pyadk.models._history import (
    PLACEHOLDER_RESPONSE,
    ensure_user_turn,
    merge_roles,
    paired_history,
)


def _call(name: str, id: str | None = None, **args: object) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=id, name=name, args=dict(args)))


def _result(name: str, id: str | None = None, **response: object) -> types.Part:
    return types.Part(
        function_response=types.FunctionResponse(id=id, name=name, response=dict(response))
    )


def _shape(contents: list[types.Content]) -> list[tuple[str | None, list[str]]]:
    """(role, [t:text | c:name#id | r:name#id=response]) per content."""
    out = []
    for content in contents:
        items = []
        for part in content.parts or []:
            if part.function_call:
                items.append(f"c:{part.function_call.name}#{part.function_call.id}")
            elif part.function_response:
                r = part.function_response
                items.append(f"r:{r.name}#{r.id}={r.response}")
            else:
                items.append(f"t:{part.text}")
        out.append((content.role, items))
    return out


def test_results_follow_their_calls_in_call_order() -> None:
    history = [
        types.UserContent("weather?"),
        types.ModelContent([_call("w", "a", city="P"), _call("w", "b", city="R")]),
        types.UserContent([_result("w", "b", sky="rain"), _result("w", "a", sky="sun")]),
    ]
    assert _shape(paired_history(history))[1:] == [
        ("model", ["c:w#a", "c:w#b"]),
        ("user", ["r:w#a={'sky': 'sun'}", "r:w#b={'sky': 'rain'}"]),
    ]


def test_calls_without_ids_get_ids_and_results_match_them_by_name() -> None:
    history = [
        types.UserContent("go"),
        types.ModelContent([_call("w"), _call("t")]),
        types.UserContent([_result("t", v=2), _result("w", v=1)]),
    ]
    assert _shape(paired_history(history))[1:] == [
        ("model", ["c:w#call_1_0", "c:t#call_1_1"]),
        ("user", ["r:w#call_1_0={'v': 1}", "r:t#call_1_1={'v': 2}"]),
    ]


def test_an_unanswered_call_gets_a_placeholder_before_the_next_user_text() -> None:
    history = [
        types.UserContent("go"),
        types.ModelContent([_call("slow", "x")]),
        types.UserContent("never mind"),
    ]
    assert _shape(paired_history(history))[1:] == [
        ("model", ["c:slow#x"]),
        ("user", [f"r:slow#x={PLACEHOLDER_RESPONSE}", "t:never mind"]),
    ]


def test_a_pending_call_at_the_end_of_history_is_answered_too() -> None:
    history = [types.UserContent("go"), types.ModelContent([_call("slow", "x")])]
    assert _shape(paired_history(history))[-1] == ("user", [f"r:slow#x={PLACEHOLDER_RESPONSE}"])


def test_a_call_followed_by_another_model_turn_is_answered_in_between() -> None:
    history = [
        types.UserContent("go"),
        types.ModelContent([_call("a", "1")]),
        types.UserContent("hm"),
        types.ModelContent(["text"]),
    ]
    shape = _shape(paired_history(history))
    assert shape[2] == ("user", [f"r:a#1={PLACEHOLDER_RESPONSE}", "t:hm"])
    assert shape[3] == ("model", ["t:text"])


def test_an_orphan_result_becomes_text_and_keeps_its_information() -> None:
    history = [types.UserContent([_result("lookup", "zz", found=True), "and?"])]
    assert _shape(paired_history(history)) == [
        ("user", ['t:Tool `lookup` returned: {"found": true}', "t:and?"])
    ]


def test_a_second_result_for_the_same_call_is_not_sent_as_a_result() -> None:
    history = [
        types.UserContent("go"),
        types.ModelContent([_call("a", "1")]),
        types.UserContent([_result("a", "1", n=1), _result("a", "1", n=2)]),
    ]
    assert _shape(paired_history(history))[2] == (
        "user",
        ["r:a#1={'n': 1}", 't:Tool `a` returned: {"n": 2}'],
    )


def test_consecutive_contents_of_one_role_are_merged() -> None:
    history = [
        types.UserContent("a"),
        types.Content(role="user", parts=[types.Part(text="b")]),
        types.ModelContent(["c"]),
        types.ModelContent([_call("f", "1")]),
    ]
    assert _shape(merge_roles(history)) == [
        ("user", ["t:a", "t:b"]),
        ("model", ["t:c", "c:f#1"]),
    ]


def test_ensure_user_turn() -> None:
    assert _shape(ensure_user_turn([])) == [("user", ["t:Follow the system instruction."])]
    ended_by_model = [types.UserContent("hi"), types.ModelContent(["hello"])]
    assert _shape(ensure_user_turn(ended_by_model))[-1] == ("user", ["t:Continue."])
    ended_by_user = [types.UserContent("hi")]
    assert ensure_user_turn(ended_by_user) is ended_by_user
