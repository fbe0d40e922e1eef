"""The session's events as the model sees them once summaries replace compacted ranges.

A compaction event (``actions.compaction``) covers the events whose timestamps lie in
its ``[start_timestamp, end_timestamp]``. A range inside another one is superseded by
it (the latest of identical ranges wins); partly overlapping ranges are all kept. The
events covered by a kept range are left out, and each kept summary appears at its
range's end, written by the agent the history is built for (role ``model``). A tool
call and its result are never separated: when a range covers one but not the other,
the covered one is kept too, so providers always get calls with their results.

Imported by the contents processor only for sessions that hold a compaction event.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

from pyadk.events.event import Event
from pyadk.utils.fast_models import construct


def kept_ranges(events: Sequence[Event]) -> list[tuple[int, float, float]]:
    """``(index, start, end)`` of the compaction events no other range supersedes, in
    event order (ranges without a summary or bounds are ignored)."""
    ranges: list[tuple[int, float, float]] = []
    comparable: list[tuple[int, float, float]] = []
    kept: set[int] = set()
    for index, event in enumerate(events):
        compaction = event.actions.compaction
        if compaction is None or compaction.compacted_content is None:
            continue
        start, end = compaction.start_timestamp, compaction.end_timestamp
        if start is None or end is None:
            continue
        item = (index, start, end)
        ranges.append(item)
        if math.isnan(start) or math.isnan(end):
            kept.add(index)
        else:
            comparable.append(item)
    # By start, then widest and latest first: a range is superseded exactly when an
    # earlier one in this order reaches at least as far.
    comparable.sort(key=lambda item: (item[1], -item[2], -item[0]))
    reach: float | None = None
    for index, _, end in comparable:
        if reach is None or end > reach:
            kept.add(index)
            reach = end
    return [item for item in ranges if item[0] in kept]


def apply_compaction(events: Sequence[Event], agent_name: str) -> tuple[list[Event], float]:
    """The history with summaries in place of their ranges, and the latest timestamp a
    kept range covers (events after it are never hidden by these summaries)."""
    ranges = kept_ranges(events)
    coverage: list[tuple[float, float]] = []
    for start, end in sorted((start, end) for _, start, end in ranges if start <= end):
        if coverage and start <= coverage[-1][1]:
            coverage[-1] = (coverage[-1][0], max(coverage[-1][1], end))
        else:
            coverage.append((start, end))
    starts = [start for start, _ in coverage]

    def covered(timestamp: float) -> bool:
        at = bisect_right(starts, timestamp) - 1
        return at >= 0 and timestamp <= coverage[at][1]

    items: list[tuple[float, int, Event]] = []
    for index, _, end in ranges:
        items.append((end, index, _summary(events[index], end, agent_name)))
    raw = [
        (index, event)
        for index, event in enumerate(events)
        if event.actions.compaction is None and event.content is not None
    ]
    hidden = {index for index, event in raw if covered(event.timestamp)}
    items.extend((event.timestamp, index, event) for index, event in raw if index not in hidden)
    items.sort(key=lambda item: (item[0], item[1]))
    until = max((end for _, end in coverage), default=-math.inf)
    return _restore_pairs([event for _, _, event in items], raw, hidden), until


def _summary(event: Event, end: float, agent_name: str) -> Event:
    compaction = event.actions.compaction
    assert compaction is not None
    return construct(
        Event,
        id=event.id,
        invocation_id=event.invocation_id,
        author=agent_name or "model",
        branch=event.branch,
        content=compaction.compacted_content,
        timestamp=end,
    )


def _restore_pairs(
    shown: list[Event], raw: list[tuple[int, Event]], hidden: set[int]
) -> list[Event]:
    """``shown`` with the hidden partners of shown tool calls and results put back: the
    hidden results of a shown call right after it, a hidden call right before the first
    shown result that answers it, with the latest hidden result of each of its other
    calls that nothing shown answers (parallel calls)."""
    call_of: dict[str, int] = {}
    results_of: dict[str, list[int]] = {}
    for index, event in raw:
        for call in event.get_function_calls():
            if call.id:
                call_of[call.id] = index
        for response in event.get_function_responses():
            if response.id:
                results_of.setdefault(response.id, []).append(index)
    if not results_of:
        return shown
    by_index = dict(raw)
    shown_ids = {id(event) for event in shown}
    restored: list[Event] = []
    changed = False
    for event in shown:
        for response in event.get_function_responses():
            call_index = call_of.get(response.id or "")
            if call_index is None or call_index not in hidden:
                continue
            hidden.discard(call_index)
            call_event = by_index[call_index]
            restored.append(call_event)
            for call in call_event.get_function_calls():
                answers = results_of.get(call.id or "", [])
                if answers and all(id(by_index[i]) not in shown_ids for i in answers):
                    restored.append(by_index[answers[-1]])
            changed = True
        restored.append(event)
        for call in event.get_function_calls():
            for answer in results_of.get(call.id or "", []):
                if answer in hidden:
                    hidden.discard(answer)
                    restored.append(by_index[answer])
                    changed = True
    return restored if changed else shown
