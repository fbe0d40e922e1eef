"""Data types of code execution and the helpers that move code between text and parts."""

from __future__ import annotations

import base64
import binascii
import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk import types


@dataclasses.dataclass(frozen=True)
class File:
    """A file given to or produced by executed code."""

    name: str
    """File name with its extension (e.g. ``"plot.png"``)."""
    content: str | bytes
    """The raw bytes, or their base64 encoding as text."""
    mime_type: str = "text/plain"


@dataclasses.dataclass
class CodeExecutionInput:
    """What to run: the code, files to place beside it and the stateful session id."""

    code: str
    input_files: list[File] = dataclasses.field(default_factory=list)
    execution_id: str | None = None
    """Set for stateful executors: runs with the same id share their state."""


@dataclasses.dataclass
class CodeExecutionResult:
    """What a run produced. A non-empty ``stderr`` marks the run as failed."""

    stdout: str = ""
    stderr: str = ""
    output_files: list[File] = dataclasses.field(default_factory=list)
    exit_code: int | None = None
    """The process's exit status, or None when the executor has none to report."""


def file_bytes(content: str | bytes) -> bytes:
    """A :class:`File`'s content as bytes (text content is base64)."""
    if isinstance(content, bytes):
        return content
    return base64.b64decode(content)


class CodeExecutionUtils:
    """Helpers shared by the executors and the code-execution flow processors."""

    @staticmethod
    def get_encoded_file_content(data: bytes) -> bytes:
        """``data`` base64-encoded, unless it already is."""
        try:
            if base64.b64encode(base64.b64decode(data, validate=True)) == data:
                return data
        except (binascii.Error, ValueError):
            pass
        return base64.b64encode(data)

    @staticmethod
    def extract_code_and_truncate_content(
        content: types.Content, code_block_delimiters: list[tuple[str, str]]
    ) -> str | None:
        """The first code block of ``content`` (None if there is none).

        ``content.parts`` is replaced in place: the text before the block, then the block
        as an ``executable_code`` part; whatever followed the block is dropped. An
        ``executable_code`` part with no result after it counts as a block too.
        """

        parts = content.parts
        if not parts:
            return None
        for index, part in enumerate(parts):
            if part.executable_code is not None and (
                index == len(parts) - 1 or parts[index + 1].code_execution_result is None
            ):
                content.parts = parts[: index + 1]
                return part.executable_code.code
        texts = [p for p in parts if p.text]
        if not texts:
            return None
        text = "\n".join(p.text or "" for p in texts)
        found: tuple[int, int, int] | None = None  # (start of lead, start, end of code)
        for lead, trail in code_block_delimiters:
            start = text.find(lead)
            if start < 0:
                continue
            end = text.find(trail, start + len(lead))
            if end < 0:
                continue
            if found is None or start < found[0]:
                found = (start, start + len(lead), end)
        if found is None:
            return None
        code = text[found[1] : found[2]]
        if not code:
            return None
        new_parts: list[types.Part] = []
        prefix = text[: found[0]]
        if prefix:
            new_parts.append(texts[0].model_copy(update={"text": prefix}))
        new_parts.append(CodeExecutionUtils.build_executable_code_part(code))
        content.parts = new_parts
        return code

    @staticmethod
    def build_executable_code_part(code: str) -> types.Part:
        """A Python ``executable_code`` part."""
        from pyadk import types

        return types.Part(executable_code=types.ExecutableCode(code=code, language="PYTHON"))

    @staticmethod
    def build_code_execution_result_part(result: CodeExecutionResult) -> types.Part:
        """The ``code_execution_result`` part for ``result``: failed with the stderr when
        there is one, else the stdout and the names of the files saved."""
        from pyadk import types

        if result.stderr:
            return types.Part(
                code_execution_result=types.CodeExecutionResult(
                    outcome=types.Outcome.OUTCOME_FAILED, output=result.stderr
                )
            )
        pieces = []
        if result.stdout or not result.output_files:
            pieces.append(f"Code execution result:\n{result.stdout}\n")
        if result.output_files:
            names = ",".join(f"`{f.name}`" for f in result.output_files)
            pieces.append(f"Saved artifacts:\n{names}")
        return types.Part(
            code_execution_result=types.CodeExecutionResult(
                outcome=types.Outcome.OUTCOME_OK, output="\n\n".join(pieces)
            )
        )

    @staticmethod
    def convert_code_execution_parts(
        content: types.Content,
        code_block_delimiter: tuple[str, str],
        execution_result_delimiters: tuple[str, str],
    ) -> None:
        """Rewrites a trailing code part of ``content`` (in place) as text a model reads:
        code between the block delimiters; a result alone in its content between the
        result delimiters, as a ``user`` turn."""
        converted = converted_content(content, code_block_delimiter, execution_result_delimiters)
        if converted is not content:
            content.role = converted.role
            content.parts = converted.parts


def converted_content(
    content: types.Content,
    code_block_delimiter: tuple[str, str],
    execution_result_delimiters: tuple[str, str],
) -> types.Content:
    """:meth:`CodeExecutionUtils.convert_code_execution_parts` without changing
    ``content``: a new Content when something is rewritten, else ``content`` itself."""
    from pyadk import types

    parts = content.parts
    if not parts:
        return content
    last = parts[-1]
    if last.executable_code is not None:
        lead, trail = code_block_delimiter
        text = types.Part(text=f"{lead}{last.executable_code.code or ''}{trail}")
        return types.Content(role=content.role, parts=[*parts[:-1], text])
    if len(parts) == 1 and last.code_execution_result is not None:
        output = last.code_execution_result.output
        lead, trail = execution_result_delimiters
        text = types.Part(text="" if output is None else f"{lead}{output}{trail}")
        return types.Content(role="user", parts=[text])
    return content
