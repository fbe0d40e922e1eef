"""The model's history with summaries: superseded and overlapping ranges, tool-call
pairs kept whole, the history cache, and the token-threshold split."""

from __future__ import annotations

from pyadk import types
from pyadk.apps.compaction import _token_threshold_range, self_contained_prefix
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions, EventCompaction
from pyadk.flows.processors.compacted_history import apply_compaction
from pyadk.flows.processors.contents import build_contents


def _text(text: str, ts: float, author: str = "user", inv: str = "i") -> Event:
    role = "user" if author == "user" else "model"
    return Event(
        author=author,
        invocation_id=inv,
        timestamp=ts,
        content=types.Content(role=role, parts=[types.Part(text=text)]),
    )


def _call(call_id: str, ts: float) -> Event:
    part = types.Part(function_call=types.FunctionCall(name="f", args={}, id=call_id))
    return Event(
        author="agent",
        invocation_id="i",
        timestamp=ts,
        content=types.Content(role="model", parts=[part]),
    )


def _result(call_id: str, ts: float) -> Event:
    part = types.Part(
        function_response=types.FunctionResponse(name="f", response={"ok": 1}, id=call_id)
    )
    return Event(
        author="user",
        invocation_id="i",
        timestamp=ts,
        content=types.Content(role="user", parts=[part]),
    )


def _summary(text: str, start: float, end: float, ts: float) -> Event:
    compaction = EventCompaction(
        start_timestamp=start,
        end_timestamp=end,
        compacted_content=types.Content(role="model", parts=[types.Part(text=text)]),
    )
    return Event(
        author="user",
        invocation_id=f"c-{text}",
        timestamp=ts,
        actions=EventActions(compaction=compaction),
    )


def _texts(contents: list[types.Content]) -> list[str]:
    out = []
    for content in contents:
        for part in content.parts or []:
            if part.text:
                out.append(part.text)
            elif part.function_call:
                out.append(f"call {part.function_call.id}")
            elif part.function_response:
                out.append(f"result {part.function_response.id}")
    return out


def test_a_summary_replaces_its_range_at_the_ranges_end_as_the_agents_turn() -> None:
    events = [_text("a", 1), _text("b", 2, "agent"), _summary("S", 1, 2, 3), _text("c", 4)]
    contents = build_contents(events, agent_name="agent", branch=None)
    assert _texts(contents) == ["S", "c"]
    assert [c.role for c in contents] == ["model", "user"]
    history, until = apply_compaction(events, "agent")
    assert history[0].author == "agent" and until == 2


def test_a_contained_range_is_superseded_and_overlapping_ones_are_both_kept() -> None:
    events = [_text(str(n), n) for n in range(1, 7)]
    inner = _summary("inner", 2, 3, 7)
    outer = _summary("outer", 1, 4, 8)
    overlapping = _summary("later", 3, 5, 9)
    history = build_contents([*events, inner, outer, overlapping], agent_name="a", branch=None)
    assert _texts(history) == ["outer", "later", "6"]


def test_identical_ranges_keep_the_latest_summary() -> None:
    events = [_text("1", 1), _text("2", 2), _summary("old", 1, 2, 3), _summary("new", 1, 2, 4)]
    assert _texts(build_contents(events, agent_name="a", branch=None)) == ["new"]


def test_a_range_splitting_a_tool_call_from_its_result_keeps_both() -> None:
    # The range ends between the call and its result: the call is shown again.
    events = [_text("q", 1), _call("c1", 2), _result("c1", 4), _text("done", 5, "agent")]
    history = build_contents([*events, _summary("S", 1, 2, 6)], agent_name="agent", branch=None)
    assert _texts(history) == ["S", "call c1", "result c1", "done"]
    # The range starts between them: the result stays with its call.
    events = [_text("q", 1), _call("c1", 2), _result("c1", 3), _text("done", 4, "agent")]
    history = build_contents([*events, _summary("S", 3, 4, 6)], agent_name="agent", branch=None)
    assert _texts(history) == ["q", "call c1", "result c1", "S"]


def test_the_history_cache_is_rebuilt_when_a_compaction_event_arrives() -> None:
    key = ("app", "u", "cache-test", "agent", None)
    events = []
    for n in range(10):
        events.append(_text(f"q{n}", 2 * n + 1))
        events.append(_text(f"a{n}", 2 * n + 2, "agent"))
    first = build_contents(events, agent_name="agent", branch=None, cache_key=key)
    assert len(first) == 20
    events = [*events, _summary("S", 1, 18, 21), _text("q10", 22)]
    assert _texts(build_contents(events, agent_name="agent", branch=None, cache_key=key)) == [
        "S",
        "q9",
        "a9",
        "q10",
    ]
    # The cached, compacted history grows with later events.
    events = [*events, _text("a10", 23, "agent")]
    assert _texts(build_contents(events, agent_name="agent", branch=None, cache_key=key))[-2:] == [
        "q10",
        "a10",
    ]


def test_the_token_threshold_split_keeps_a_retained_result_with_its_call() -> None:
    events = [_text("q", 1), _call("c1", 2), _result("c1", 3), _text("done", 4, "agent")]
    # Retaining 2 would keep the result without its call: the call is retained too.
    assert [e.timestamp for e in _token_threshold_range(events, 2)] == [1]
    # A previous summary leads the range, so the new one supersedes it.
    events = [_summary("S", 1, 1, 1.5), *events[1:], _text("more", 5)]
    assert [e.timestamp for e in _token_threshold_range(events, 1)] == [1, 2, 3, 4]


def test_an_open_call_ends_the_window_unless_it_can_never_be_answered() -> None:
    open_call = _call("c1", 2)
    window = [_text("q", 1), open_call, _text("later", 3)]
    assert self_contained_prefix(window, window) == window[:1]
    # From an older invocation and never answered: it no longer blocks compaction.
    old = [_text("q", 1, inv="old"), open_call.model_copy(update={"invocation_id": "old"})]
    newer = [_text("next", 3, inv="new")]
    assert self_contained_prefix(old, old + newer) == old
    # A long-running call may still be answered: it keeps blocking.
    waiting = old[1].model_copy(update={"long_running_tool_ids": {"c1"}})
    assert self_contained_prefix([old[0], waiting], [old[0], waiting, *newer]) == old[:1]


def test_prompt_tokens_come_from_the_latest_usage_since_the_last_summary() -> None:
    from pyadk.apps.compaction import latest_prompt_token_count

    answered = _text("a", 2, "agent").model_copy(
        update={"usage_metadata": types.UsageMetadata(prompt_token_count=1234)}
    )
    assert latest_prompt_token_count([_text("q", 1), answered], "agent") == 1234
    # Counts before a summary describe a prompt it replaced: estimated instead (4 chars).
    events = [_text("q", 1), answered, _summary("S" * 40, 1, 2, 3), _text("x" * 400, 4)]
    assert latest_prompt_token_count(events, "agent") == (40 + 400) // 4
