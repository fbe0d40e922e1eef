"""Reads eval sets from files: ``*.evalset.json``, or google-adk's older ``*.test.json``
(a list of ``{query, expected_tool_use, reference}``), which becomes one eval case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pyadk import types
from pyadk.evaluation.common import read_json_file
from pyadk.evaluation.eval_case import EvalCase, IntermediateData, Invocation, SessionInput
from pyadk.evaluation.eval_set import EvalSet
from pyadk.evaluation.evaluation_generator import DEFAULT_USER_ID
from pyadk.evaluation.tool_fakes import ToolFake


class EvalSetFileError(ValueError):
    """An eval set file that cannot be read (names the file and the problem)."""


def load_eval_set(path: str | Path, initial_session: dict[str, Any] | None = None) -> EvalSet:
    """The eval set in ``path``; an older-format file becomes a one-case set whose
    session starts from ``initial_session`` (``{"state": ..., "user_id": ...}``)."""
    path = Path(path)
    data = read_json_file(path, "eval set", EvalSetFileError)
    if isinstance(data, list):
        try:
            return eval_set_from_legacy(data, name=path.name, initial_session=initial_session)
        except (KeyError, TypeError, AttributeError, ValidationError) as error:
            problem = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise EvalSetFileError(
                f"Invalid eval data in {path} (a list of {{query, expected_tool_use, "
                f"reference}} objects): {problem}"
            ) from error
    if initial_session:
        raise EvalSetFileError(
            f"{path} is an eval set: give the initial session as its cases' session_input."
        )
    try:
        return EvalSet.model_validate(data)
    except ValidationError as error:
        raise EvalSetFileError(f"Invalid eval set {path}: {error}") from error


def eval_set_from_legacy(
    rows: list[dict[str, Any]], *, name: str, initial_session: dict[str, Any] | None = None
) -> EvalSet:
    """Converts the older list-of-queries format; ``name`` (the file name) becomes both
    the eval set id and the case id."""
    conversation = [_legacy_invocation(row) for row in rows]
    session = initial_session or {}
    session_input = SessionInput(
        app_name=session.get("app_name", ""),
        user_id=session.get("user_id", DEFAULT_USER_ID),
        state=session.get("state", {}),
    )
    case = EvalCase(
        eval_id=name,
        conversation=conversation,
        session_input=session_input,
        tool_fakes=_legacy_fakes(rows),
    )
    return EvalSet(eval_set_id=name, name=name, eval_cases=[case])


def _legacy_fakes(rows: list[dict[str, Any]]) -> list[ToolFake]:
    """The ``mock_tool_output`` of older files, as fakes for those calls."""
    return [
        ToolFake(name=use["tool_name"], args=use.get("tool_input") or {}, response=_as_dict(mock))
        for row in rows
        for use in row.get("expected_tool_use", [])
        if (mock := use.get("mock_tool_output")) is not None
    ]


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"result": value}


def _legacy_invocation(row: dict[str, Any]) -> Invocation:
    calls = [
        types.FunctionCall(name=use["tool_name"], args=use.get("tool_input") or {})
        for use in row.get("expected_tool_use", [])
    ]
    said = [
        (r["author"], [types.Part(text=r["text"])])
        for r in row.get("expected_intermediate_agent_responses", [])
    ]
    reference = row.get("reference")
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=row["query"])]),
        final_response=(
            types.Content(role="model", parts=[types.Part(text=reference)])
            if reference is not None
            else None
        ),
        intermediate_data=IntermediateData(tool_uses=calls, intermediate_responses=said),
    )


def eval_set_files(path: str | Path) -> list[Path]:
    """``path`` itself, or every ``*.test.json`` / ``*.evalset.json`` under it (sorted)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise EvalSetFileError(f"Eval data not found: {path}")
    found = sorted(p for pattern in ("*.test.json", "*.evalset.json") for p in path.rglob(pattern))
    if not found:
        raise EvalSetFileError(f"No *.test.json or *.evalset.json files under {path}")
    return found
