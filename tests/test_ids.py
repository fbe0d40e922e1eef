"""pyadk.utils.ids: unique ids in UUID4 format."""

from __future__ import annotations

import multiprocessing
import uuid

from pyadk.utils.ids import new_uuid4, random_uuid4


def _ids_in_child(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put([new_uuid4() for _ in range(3)])


def test_ids_are_uuid4_strings_and_unique() -> None:
    ids = [new_uuid4() for _ in range(10_000)]

    assert len(set(ids)) == len(ids)
    for value in ids[:100]:
        parsed = uuid.UUID(value)
        assert str(parsed) == value
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_a_forked_child_draws_its_own_ids() -> None:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    parent_before = new_uuid4()
    child = context.Process(target=_ids_in_child, args=(queue,))
    child.start()
    child_ids = queue.get(timeout=30)
    child.join(timeout=30)
    parent_after = [new_uuid4() for _ in range(3)]

    assert not set(child_ids) & set(parent_after)
    assert child_ids[0][:24] != parent_before[:24]  # a new random prefix, not the parent's


def test_random_ids_are_uuid4_strings_with_nothing_shared() -> None:
    ids = [random_uuid4() for _ in range(2_000)]

    assert len(set(ids)) == len(ids)
    for value in ids:
        parsed = uuid.UUID(value)
        assert str(parsed) == value
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
    # Unlike new_uuid4, no prefix is shared: the first 8 characters vary.
    assert len({value[:8] for value in ids}) > 1_900
