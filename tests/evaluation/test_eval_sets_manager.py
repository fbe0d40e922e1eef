"""LocalEvalSetsManager (eval set files beside the agents) and session_to_eval_case
(a recorded conversation as an eval case that replays it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.evaluation import (
    EvalCase,
    EvalConfig,
    EvalStatus,
    LocalEvalSetsManager,
    evaluate_eval_set,
    get_eval_metrics_from_config,
)
from pyadk.evaluation.local_eval_sets_manager import EvalNotFoundError
from pyadk.evaluation.session_to_eval_case import session_to_eval_case, starting_state
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.models import LlmRequest
from pyadk.runners import InMemoryRunner
from pyadk.sessions.session import Session
from pyadk.testing import FunctionModel, function_call


def case(eval_id: str, question: str = "hi", answer: str = "hello") -> EvalCase:
    return EvalCase.model_validate(
        {
            "evalId": eval_id,
            "conversation": [
                {
                    "userContent": {"role": "user", "parts": [{"text": question}]},
                    "finalResponse": {"role": "model", "parts": [{"text": answer}]},
                }
            ],
        }
    )


@pytest.fixture
def manager(tmp_path: Path) -> LocalEvalSetsManager:
    return LocalEvalSetsManager(tmp_path)


def test_create_get_and_list_eval_sets(manager: LocalEvalSetsManager, tmp_path: Path) -> None:
    assert manager.list_eval_sets("app") == []
    assert manager.get_eval_set("app", "smoke") is None

    created = manager.create_eval_set("app", "smoke")
    manager.create_eval_set("app", "A_1")

    assert (created.eval_set_id, created.name, created.eval_cases) == ("smoke", "smoke", [])
    assert created.creation_timestamp > 0
    assert manager.list_eval_sets("app") == ["A_1", "smoke"]
    assert manager.get_eval_set("app", "smoke") == created
    stored = json.loads((tmp_path / "app" / "smoke.evalset.json").read_text())
    assert set(stored) == {"evalSetId", "name", "evalCases", "creationTimestamp"}
    assert manager.list_eval_sets("other_app") == []


@pytest.mark.parametrize("bad_id", ["", "with-dash", "with space", "../up", "dot.ted"])
def test_create_refuses_bad_ids(manager: LocalEvalSetsManager, bad_id: str) -> None:
    with pytest.raises(ValueError, match="letters, digits and underscores"):
        manager.create_eval_set("app", bad_id)


def test_create_refuses_an_existing_set(manager: LocalEvalSetsManager) -> None:
    manager.create_eval_set("app", "smoke")
    manager.add_eval_case("app", "smoke", case("kept"))

    with pytest.raises(ValueError, match="Eval set 'smoke' already exists for app 'app'"):
        manager.create_eval_set("app", "smoke")
    eval_set = manager.get_eval_set("app", "smoke")
    assert eval_set is not None and [c.eval_id for c in eval_set.eval_cases] == ["kept"]


def test_paths_never_leave_the_app_directory(manager: LocalEvalSetsManager) -> None:
    assert manager.get_eval_set("app", "../../etc/passwd") is None
    assert manager.get_eval_case("app", "a/b", "x") is None
    for bad_app in ("..", "a/b", ""):
        with pytest.raises(ValueError, match="Invalid app name"):
            manager.list_eval_sets(bad_app)


def test_sets_written_by_hand_or_in_the_older_format_are_read(
    manager: LocalEvalSetsManager, tmp_path: Path
) -> None:
    app_dir = tmp_path / "app"
    app_dir.mkdir()
    by_hand = {"evalSetId": "my-set", "evalCases": [case("c1").model_dump(by_alias=True)]}
    (app_dir / "my-set.evalset.json").write_text(json.dumps(by_hand))
    older = [{"query": "hi", "expected_tool_use": [], "reference": "hello"}]
    (app_dir / "older.evalset.json").write_text(json.dumps(older))
    (app_dir / "notes.txt").write_text("not a set")

    assert manager.list_eval_sets("app") == ["my-set", "older"]
    my_set = manager.get_eval_set("app", "my-set")
    assert my_set is not None and [c.eval_id for c in my_set.eval_cases] == ["c1"]
    older_set = manager.get_eval_set("app", "older")
    assert older_set is not None and older_set.eval_set_id == "older"
    [converted] = older_set.eval_cases
    assert converted.conversation[0].user_content.parts[0].text == "hi"

    (app_dir / "broken.evalset.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"broken\.evalset\.json"):
        manager.get_eval_set("app", "broken")


def test_add_get_update_and_delete_cases(manager: LocalEvalSetsManager, tmp_path: Path) -> None:
    manager.create_eval_set("app", "smoke")
    manager.add_eval_case("app", "smoke", case("first"))
    manager.add_eval_case("app", "smoke", case("second"))

    got = manager.get_eval_case("app", "smoke", "second")
    assert got is not None and got.conversation[0].final_response is not None
    assert manager.get_eval_case("app", "smoke", "nope") is None
    assert manager.get_eval_case("app", "nope", "first") is None

    manager.update_eval_case("app", "smoke", case("first", answer="changed"))
    eval_set = manager.get_eval_set("app", "smoke")
    assert eval_set is not None
    assert [c.eval_id for c in eval_set.eval_cases] == ["first", "second"]  # place kept
    final = eval_set.eval_cases[0].conversation[0].final_response
    assert final is not None and final.parts[0].text == "changed"

    manager.delete_eval_case("app", "smoke", "first")
    eval_set = manager.get_eval_set("app", "smoke")
    assert eval_set is not None and [c.eval_id for c in eval_set.eval_cases] == ["second"]
    stored = json.loads((tmp_path / "app" / "smoke.evalset.json").read_text())
    assert [c["evalId"] for c in stored["evalCases"]] == ["second"]
    assert "finalResponse" in stored["evalCases"][0]["conversation"][0]
    assert not [p for p in (tmp_path / "app").iterdir() if p.name.startswith(".")]  # no temp


def test_missing_sets_and_cases_and_duplicates_are_errors(
    manager: LocalEvalSetsManager,
) -> None:
    with pytest.raises(EvalNotFoundError) as missing_set:
        manager.add_eval_case("app", "nope", case("c"))
    assert isinstance(missing_set.value, KeyError)
    assert str(missing_set.value) == "Eval set 'nope' not found for app 'app'."

    manager.create_eval_set("app", "smoke")
    manager.add_eval_case("app", "smoke", case("c"))
    with pytest.raises(ValueError, match="Eval set 'smoke' already has an eval case 'c'"):
        manager.add_eval_case("app", "smoke", case("c"))
    with pytest.raises(EvalNotFoundError) as missing_case:
        manager.update_eval_case("app", "smoke", case("other"))
    assert str(missing_case.value) == "Eval case 'other' not found in eval set 'smoke'."
    with pytest.raises(EvalNotFoundError, match="Eval case 'other' not found"):
        manager.delete_eval_case("app", "smoke", "other")
    with pytest.raises(EvalNotFoundError, match="Eval set 'gone' not found"):
        manager.delete_eval_case("app", "gone", "c")

    manager.delete_eval_set("app", "smoke")
    assert manager.list_eval_sets("app") == []
    with pytest.raises(EvalNotFoundError):
        manager.delete_eval_set("app", "smoke")


# ---- session_to_eval_case


def user(text: str, **fields: Any) -> Event:
    return Event(
        author="user", content=types.Content(role="user", parts=[types.Part(text=text)]), **fields
    )


def said(author: str, *parts: types.Part, **fields: Any) -> Event:
    return Event(author=author, content=types.Content(role="model", parts=list(parts)), **fields)


def test_each_user_message_starts_an_invocation() -> None:
    call = types.FunctionCall(id="c1", name="lookup", args={"q": "tea"})
    result = types.FunctionResponse(id="c1", name="lookup", response={"found": True})
    events = [
        said("greeter", types.Part(text="Welcome!"), invocation_id="i0"),  # before the user
        user("find tea", invocation_id="i1"),
        said(
            "helper",
            types.Part(text="Looking."),
            types.Part(function_call=call),
            invocation_id="i1",
        ),
        Event(
            author="helper",
            invocation_id="i1",
            content=types.Content(role="user", parts=[types.Part(function_response=result)]),
            actions=EventActions(state_delta={"found": True}),
        ),
        said("helper", types.Part(text="Found tea."), invocation_id="i1"),
        Event(author="user", invocation_id="i2", actions=EventActions(state_delta={"x": 1})),
        user("thanks", invocation_id="i3"),
        said("helper", types.Part(text="You're welcome."), invocation_id="i3"),
        user("bye", invocation_id="i4"),  # not answered (yet)
    ]
    session = Session(
        id="s1",
        app_name="shop",
        user_id="ann",
        state={"found": True, "x": 1, "lang": "en", "user:tier": "gold", "temp:t": 1},
        events=events,
    )

    converted = session_to_eval_case(session, "tea")

    assert converted.eval_id == "tea" and converted.creation_timestamp > 0
    first, second, third = converted.conversation
    assert [i.invocation_id for i in converted.conversation] == ["i1", "i3", "i4"]
    assert first.user_content.parts[0].text == "find tea"
    assert first.final_response is not None
    assert first.final_response.parts[0].text == "Found tea."
    assert first.intermediate_data is not None
    assert [(c.name, c.args) for c in first.intermediate_data.tool_uses] == [
        ("lookup", {"q": "tea"})
    ]
    assert [r.response for r in first.intermediate_data.tool_responses] == [{"found": True}]
    assert [(a, p[0].text) for a, p in first.intermediate_data.intermediate_responses] == [
        ("helper", "Looking.")
    ]
    assert second.final_response is not None
    assert second.final_response.parts[0].text == "You're welcome."
    assert third.final_response is None and third.creation_timestamp == events[-1].timestamp

    assert converted.session_input is not None
    assert converted.session_input.app_name == "shop"
    assert converted.session_input.user_id == "ann"
    # Keys an event changed are left out (their starting value is unknown); temp: keys
    # are never part of a session's state.
    assert converted.session_input.state == {"lang": "en", "user:tier": "gold"}


def test_a_session_without_messages_is_an_empty_case() -> None:
    session = Session(id="s", app_name="a", user_id="u", state={"k": 1})
    converted = session_to_eval_case(session, "empty")
    assert converted.conversation == []
    assert starting_state(session) == {"k": 1}


def user_texts(request: LlmRequest) -> list[str]:
    return [p.text for c in request.contents if c.role == "user" for p in c.parts or () if p.text]


def shop_model(request: LlmRequest) -> object:
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        return f"{last.function_response.response['item']} costs 3 euros."
    return function_call("price", {"item": user_texts(request)[-1].split()[-1]})


def price(item: str) -> dict[str, str]:
    """The price of an item.

    Args:
      item: the item.
    """
    return {"item": item, "price": "3 EUR"}


async def test_a_recorded_session_replays_as_a_passing_eval_case(
    manager: LocalEvalSetsManager,
) -> None:
    agent = LlmAgent(name="shop", model=FunctionModel(shop_model), tools=[price])
    async with InMemoryRunner(agent, app_name="shop") as runner:
        session = await runner.session_service.create_session(
            app_name="shop", user_id="ann", state={"currency": "EUR"}
        )
        for text in ("price of tea", "price of cake"):
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for _ in runner.run_async(
                user_id="ann", session_id=session.id, new_message=message
            ):
                pass
        stored = await runner.session_service.get_session(
            app_name="shop", user_id="ann", session_id=session.id
        )
    assert stored is not None

    manager.create_eval_set("shop", "prices")
    manager.add_eval_case("shop", "prices", session_to_eval_case(stored, "two_items"))
    eval_set = manager.get_eval_set("shop", "prices")
    assert eval_set is not None
    [recorded] = eval_set.eval_cases
    assert recorded.session_input is not None
    assert recorded.session_input.state == {"currency": "EUR"}

    metrics = get_eval_metrics_from_config(EvalConfig())
    [result] = await evaluate_eval_set(agent, eval_set, metrics, app_name="shop")

    assert result.final_eval_status is EvalStatus.PASSED, result
    assert [m.score for m in result.overall_eval_metric_results] == [1.0, 1.0]
