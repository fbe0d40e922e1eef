"""Task sets: the format, validation, hashing and the starter suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from pyadk.contrib._loading import load_object
from pyadk.contrib.bench.tasks import STARTER_SUITE, TaskSet, load_task_set, parse_task_set

TASK = {"id": "t1", "request": "Write an agent.", "verification": {"checker": "m:f"}}


def test_starter_suite_has_at_least_15_tasks_of_increasing_difficulty() -> None:
    suite = load_task_set("starter")
    assert suite.name == "pyadk-starter" and len(suite.tasks) >= 15
    difficulties = [t.difficulty for t in suite.tasks]
    assert difficulties == sorted(difficulties) and difficulties[0] < difficulties[-1]
    assert all("pyadk" in t.request for t in suite.tasks)


def test_every_starter_checker_resolves() -> None:
    suite = load_task_set(STARTER_SUITE)
    kinds = {"command" if t.verification.command else "checker" for t in suite.tasks}
    assert kinds == {"command", "checker"}  # the suite shows both kinds
    for task in suite.tasks:
        if task.verification.checker:
            assert callable(load_object(task.verification.checker)), task.id


def test_json_task_set_and_bare_list(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([TASK]), encoding="utf-8")
    task_set = load_task_set(path)
    assert task_set.name == "mine" and [t.id for t in task_set.tasks] == ["t1"]
    assert task_set.tasks[0].difficulty == 1


def test_yaml_task_set(tmp_path: Path) -> None:
    path = tmp_path / "set.yaml"
    path.write_text(
        "name: demo\ntasks:\n  - id: a\n    request: r\n    verification:\n"
        "      command: 'true'\n      timeout: 5\n",
        encoding="utf-8",
    )
    [task] = load_task_set(path).tasks
    assert task.verification.command == "true" and task.verification.timeout == 5


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"verification": {}}, "exactly one of 'command' or 'checker'"),
        ({"verification": {"command": "x", "checker": "m:f"}}, "exactly one of"),
        ({"id": "has space"}, "should match pattern"),
        ({"request": ""}, "at least 1 character"),
    ],
)
def test_invalid_tasks_are_rejected(change: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_task_set([{**TASK, **change}])


def test_duplicate_ids_are_rejected() -> None:
    with pytest.raises(ValidationError, match="duplicate task id 't1'"):
        parse_task_set([TASK, TASK])


def test_hash_is_stable_and_changes_with_content() -> None:
    first = parse_task_set([TASK])
    assert first.content_hash() == parse_task_set({"tasks": [dict(TASK)]}).content_hash()
    changed = parse_task_set([{**TASK, "request": "Write another agent."}])
    assert changed.content_hash() != first.content_hash()
    assert len(first.content_hash()) == 64


def test_select_by_ids_and_limit() -> None:
    suite = load_task_set("starter")
    chosen = suite.select(["loop_exit", "add_tool"])
    assert [t.id for t in chosen.tasks] == ["add_tool", "loop_exit"]  # suite order
    assert len(suite.select(limit=3).tasks) == 3
    with pytest.raises(ValueError, match="unknown task ids: nope"):
        suite.select(["nope"])
    assert isinstance(chosen, TaskSet) and chosen.content_hash() != suite.content_hash()
