"""Assembling a model's answer from streamed deltas (or from whole blocks).

Adapters feed text, thought and tool-call deltas into a :class:`ResponseBuilder`; text
and thought deltas come back as partial responses to yield; :meth:`ResponseBuilder.final`
returns the one aggregated, non-partial response. Non-streaming adapters use the same
builder with whole blocks, so both paths produce the same final response.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pyadk import types
from pyadk.models.llm_response import LlmResponse

BlockKind = Literal["text", "thought", "call", "part"]


@dataclass(eq=False)
class _Block:
    kind: BlockKind
    text: list[str] = field(default_factory=list)
    signature: bytes | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)
    args: dict[str, Any] | None = None
    part: types.Part | None = None
    redacted: bool = False


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any] | None:
    """Tool-call arguments as a dict ({} for empty), or None when they are not a JSON object."""
    if isinstance(raw, dict):
        return raw
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def partial_response(part: types.Part) -> LlmResponse:
    """A streamed chunk holding one part."""
    return LlmResponse(content=types.Content(role="model", parts=[part]), partial=True)


class ResponseBuilder:
    """Collects the blocks of one answer, in order, and builds the final response.

    Blocks are addressed by ``key`` (e.g. Anthropic's content-block index or an OpenAI
    tool-call index); without a key a delta extends the last block of its kind when that
    is the last block, so consecutive text deltas form one text part.
    """

    def __init__(self) -> None:
        self._blocks: list[_Block] = []
        self._keyed: dict[object, _Block] = {}
        self._keyed_ids: set[int] = set()
        self.finish_reason: types.FinishReason | None = None
        self.usage: types.UsageMetadata | None = None
        self.model_version: str | None = None

    def _block(self, kind: BlockKind, key: object = None) -> _Block:
        if key is not None:
            block = self._keyed.get((kind, key))
            if block is None:
                block = self._keyed[(kind, key)] = _Block(kind)
                self._keyed_ids.add(id(block))
                self._blocks.append(block)
            return block
        last = self._blocks[-1] if self._blocks else None
        if last is not None and last.kind == kind and id(last) not in self._keyed_ids:
            return last
        block = _Block(kind)
        self._blocks.append(block)
        return block

    def text(self, delta: str, *, thought: bool = False, key: object = None) -> LlmResponse | None:
        """Adds text (or thought text); returns the partial response for a non-empty delta."""
        self._block("thought" if thought else "text", key).text.append(delta)
        if not delta:
            return None
        return partial_response(types.Part(text=delta, thought=True if thought else None))

    def signature(self, signature: bytes, *, thought: bool = False, key: object = None) -> None:
        """Attaches a provider signature to the current text or thought block."""
        block = self._block("thought" if thought else "text", key)
        if block.signature is not None and block.signature != signature and key is None:
            block = _Block(block.kind)
            self._blocks.append(block)
        block.signature = signature

    def redacted_thought(self, data: bytes) -> None:
        """An opaque (redacted) reasoning block, kept to be sent back verbatim."""
        self._blocks.append(_Block("thought", signature=data, redacted=True))

    def call(
        self,
        key: object,
        *,
        call_id: str | None = None,
        name: str | None = None,
        arguments: str | None = None,
        args: dict[str, Any] | None = None,
        signature: bytes | None = None,
    ) -> None:
        """Adds a tool call, or a delta of one (id, name, a piece of its JSON arguments)."""
        block = self._block("call", key)
        block.call_id = call_id or block.call_id
        if name and name != block.name:
            block.name = (block.name or "") + name
        if arguments:
            block.arguments.append(arguments)
        if args is not None:
            block.args = args
        if signature is not None:
            block.signature = signature

    def part(self, part: types.Part) -> None:
        """Adds a whole part (e.g. a complete function call or inline data)."""
        self._blocks.append(_Block("part", part=part))

    def parts(self) -> tuple[list[types.Part], list[str]]:
        """(the assembled parts, in order; the error of each malformed tool call)."""
        parts: list[types.Part] = []
        errors: list[str] = []
        for block in self._blocks:
            if block.kind == "part" and block.part is not None:
                parts.append(block.part)
            elif block.kind == "call":
                raw = "".join(block.arguments)
                args = block.args if block.args is not None else parse_arguments(raw)
                if args is None or not block.name:
                    errors.append(f"tool call {block.name or '<no name>'} with arguments {raw!r}")
                    continue
                call = types.FunctionCall(id=block.call_id or None, name=block.name, args=args)
                parts.append(types.Part(function_call=call, thought_signature=block.signature))
            elif block.redacted:
                parts.append(types.Part(thought=True, thought_signature=block.signature))
            else:
                text = "".join(block.text)
                if not text and block.signature is None:
                    continue
                thought = True if block.kind == "thought" else None
                parts.append(
                    types.Part(text=text, thought=thought, thought_signature=block.signature)
                )
        return parts, errors

    def final(self) -> LlmResponse:
        """The aggregated, non-partial response."""
        parts, errors = self.parts()
        return final_response(
            parts,
            finish_reason=self.finish_reason,
            usage=self.usage,
            model_version=self.model_version,
            malformed=errors,
        )


def final_response(
    parts: list[types.Part],
    *,
    finish_reason: types.FinishReason | None,
    usage: types.UsageMetadata | None = None,
    model_version: str | None = None,
    malformed: list[str] | None = None,
) -> LlmResponse:
    """The complete answer of one call.

    Malformed tool calls are left out and reported as ``MALFORMED_FUNCTION_CALL`` (so
    the run shows an error instead of calling a tool with made-up arguments). An empty
    answer that did not stop normally reports its finish reason as the error.
    """
    error_code = error_message = None
    if malformed:
        finish_reason = types.FinishReason.MALFORMED_FUNCTION_CALL
        error_code = finish_reason.value
        error_message = "The model produced invalid tool-call arguments: " + "; ".join(malformed)
    elif not parts and finish_reason not in (None, types.FinishReason.STOP):
        assert finish_reason is not None
        error_code = finish_reason.value
        error_message = f"The model returned no content (finish reason {finish_reason.value})."
    return LlmResponse(
        content=types.Content(role="model", parts=parts or [types.Part(text="")]),
        finish_reason=finish_reason,
        usage_metadata=usage,
        model_version=model_version,
        error_code=error_code,
        error_message=error_message,
        turn_complete=True,
    )
