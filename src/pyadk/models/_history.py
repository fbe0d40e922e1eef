"""History clean-up for providers that pair every tool call with exactly one result.

OpenAI-style and Anthropic APIs reject a request where an assistant tool call is not
answered right after it, or where a tool result answers no call. pyadk histories can
hold both (a long-running tool still pending, an interrupted run, a hand-written
history), so adapters pass their contents through :func:`paired_history` first.
"""

from __future__ import annotations

import json
from typing import Any

from pyadk import types

PLACEHOLDER_RESPONSE: dict[str, Any] = {"error": "No result was recorded for this tool call."}
_EMPTY_HISTORY_TEXT = "Follow the system instruction."
_CONTINUE_TEXT = "Continue."


def ensure_user_turn(contents: list[types.Content]) -> list[types.Content]:
    """``contents`` ending with a user turn, as chat APIs expect (a short user text is
    added when the history is empty or ends with the model)."""
    if not contents:
        return [types.Content(role="user", parts=[types.Part(text=_EMPTY_HISTORY_TEXT)])]
    if contents[-1].role != "user":
        return [*contents, types.Content(role="user", parts=[types.Part(text=_CONTINUE_TEXT)])]
    return contents


def merge_roles(contents: list[types.Content]) -> list[types.Content]:
    """Consecutive contents of the same role merged into one (roles default to user)."""
    merged: list[types.Content] = []
    for content in contents:
        role = "model" if content.role == "model" else "user"
        parts = list(content.parts or [])
        if merged and merged[-1].role == role:
            merged[-1] = types.Content(role=role, parts=[*(merged[-1].parts or []), *parts])
        else:
            merged.append(types.Content(role=role, parts=parts))
    return merged


def paired_history(contents: list[types.Content]) -> list[types.Content]:
    """Roles merged, then every model turn with function calls followed by a user turn
    that starts with one response per call, in call order, with matching ids.

    Calls without an id get one (``call_<turn>_<n>``); a response without an id (or with
    an unknown one) answers the first unanswered call of its name. A call with no
    response gets :data:`PLACEHOLDER_RESPONSE`; a response that answers no call becomes
    a text part, so its information is kept.
    """
    out: list[types.Content] = []
    pending: list[types.FunctionCall] = []
    for turn, content in enumerate(merge_roles(contents)):
        if content.role == "model":
            if pending:
                out.append(types.Content(role="user", parts=_answers(pending, [])[0]))
            parts = [
                _with_call_id(part, turn, index) for index, part in enumerate(content.parts or [])
            ]
            out.append(types.Content(role="model", parts=parts))
            pending = [p.function_call for p in parts if p.function_call is not None]
            continue
        responses = [p for p in content.parts or [] if p.function_response is not None]
        others = [p for p in content.parts or [] if p.function_response is None]
        answers, orphans = _answers(pending, responses)
        pending = []
        parts = [*answers, *(q for p in orphans for q in _as_text(p)), *others]
        if parts:
            out.append(types.Content(role="user", parts=parts))
    if pending:
        out.append(types.Content(role="user", parts=_answers(pending, [])[0]))
    return out


def _with_call_id(part: types.Part, turn: int, index: int) -> types.Part:
    call = part.function_call
    if call is None or call.id:
        return part
    return part.model_copy(
        update={"function_call": call.model_copy(update={"id": f"call_{turn}_{index}"})}
    )


def _answers(
    calls: list[types.FunctionCall], responses: list[types.Part]
) -> tuple[list[types.Part], list[types.Part]]:
    """(one response part per call, in call order; the responses that answer no call)."""
    by_id: dict[str, types.Part] = {}
    orphans: list[types.Part] = []
    ids = [call.id or "" for call in calls]
    for part in responses:
        response = part.function_response
        assert response is not None
        target = response.id if response.id in ids and response.id not in by_id else None
        if target is None:
            target = next(
                (
                    call.id
                    for call in calls
                    if call.name == response.name and call.id and call.id not in by_id
                ),
                None,
            )
        if target is None:
            orphans.append(part)
        else:
            by_id[target] = part
    answers = []
    for call in calls:
        found = by_id.get(call.id or "")
        response = found.function_response if found is not None else None
        answers.append(
            types.Part(
                function_response=types.FunctionResponse(
                    id=call.id,
                    name=call.name,
                    response=response.response if response is not None else PLACEHOLDER_RESPONSE,
                    parts=response.parts if response is not None else None,
                )
            )
        )
    return answers, orphans


def _as_text(part: types.Part) -> list[types.Part]:
    """An orphan response as text, then the media it carries as ordinary parts."""
    response = part.function_response
    assert response is not None
    result = json.dumps(response.response, ensure_ascii=False, default=str)
    parts = [types.Part(text=f"Tool `{response.name}` returned: {result}")]
    for media in response.parts or ():
        blob, file = media.inline_data, media.file_data
        if blob is not None and blob.data is not None:
            parts.append(types.Part.from_bytes(data=blob.data, mime_type=blob.mime_type or ""))
        elif file is not None and file.file_uri:
            parts.append(types.Part.from_uri(file_uri=file.file_uri, mime_type=file.mime_type))
    return parts


def response_text(response: types.FunctionResponse) -> str:
    """A function response as the text a chat API's tool message carries (JSON)."""
    return json.dumps(response.response or {}, ensure_ascii=False, default=str)
