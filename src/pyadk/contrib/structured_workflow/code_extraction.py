"""Extracting Python code from a model's answer: fenced blocks, JSON, or plain code."""

from __future__ import annotations

import ast
import builtins
import json
import re
from dataclasses import dataclass

_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+#.-]*)[^\n]*$")
_PYTHON_LANGS = frozenset({"python", "py", "python3", "py3", "pycon"})
_GENERIC_LANGS = frozenset({"", "text", "code", "txt", "plain"})
_JSON_LANGS = frozenset({"json", "json5"})
_CODE_KEYS = ("code", "agent_code", "python", "source", "content")


@dataclass(frozen=True)
class CodeBlock:
    """One fenced block: its language tag (lower case, may be empty) and its text."""

    lang: str
    code: str
    closed: bool = True


def fenced_blocks(text: str) -> list[CodeBlock]:
    """The fenced blocks of a Markdown text, in order; an unclosed block counts, and ends
    where a new block with a language tag and the same fence opens."""
    blocks: list[CodeBlock] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = _OPEN.match(lines[index])
        index += 1
        if match is None:
            continue
        fence = match["fence"]
        body: list[str] = []
        closed = False
        while index < len(lines):
            line = lines[index]
            stripped = line.strip()
            nested = _OPEN.match(line)
            if nested is not None and nested["lang"] and nested["fence"] == fence:
                break  # a model that opens the next block without closing this one
            index += 1
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                closed = True
                break
            body.append(line)
        blocks.append(CodeBlock(match["lang"].lower(), "\n".join(body), closed))
    return blocks


def parses(code: str) -> bool:
    """True when ``code`` is valid Python."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def defines_root_agent(code: str) -> bool:
    """True when ``code`` parses and assigns ``root_agent`` at module level."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "root_agent" for t in targets):
            return True
    return False


def _bound_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def missing_names(code: str) -> set[str]:
    """Names ``code`` uses but never defines or imports (builtins aside)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used - _bound_names(tree) - set(dir(builtins))


def _from_json(text: str) -> str | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _CODE_KEYS:
            if isinstance(value.get(key), str):
                return str(value[key])
    return None


def _drop_language_line(code: str) -> str:
    """A generic block whose first line is just ``python`` (a misplaced tag)."""
    first, _, rest = code.partition("\n")
    return rest if first.strip().lower() in _PYTHON_LANGS else code


def _rank(code: str) -> tuple[int, int]:
    return (2 if defines_root_agent(code) else 1 if parses(code) else 0, len(code))


def extract_code(text: str | None) -> str | None:
    """The Python code of a model's answer, or None when it holds none.

    Looks at fenced blocks first (``python`` blocks, then untagged ones, then JSON
    blocks with a ``code`` field); prefers a block that defines ``root_agent``, then one
    that parses, then the longest. Python blocks that only work together (tools in
    one, the agent that uses them in the next) are joined. Without fences,
    the whole answer is taken when it is JSON with a ``code`` field or valid Python.
    """
    if not text or not text.strip():
        return None
    blocks = fenced_blocks(text)
    python = [b.code for b in blocks if b.lang in _PYTHON_LANGS]
    generic = [_drop_language_line(b.code) for b in blocks if b.lang in _GENERIC_LANGS]
    from_json = [c for b in blocks if b.lang in _JSON_LANGS if (c := _from_json(b.code))]
    for group in (python, generic, from_json):
        candidates = [c.strip("\n") for c in group if c.strip()]
        if not candidates:
            continue
        best = max(candidates, key=_rank)
        if len(candidates) > 1:
            joined = "\n\n".join(dict.fromkeys(c for c in candidates if parses(c)))
            if defines_root_agent(joined) and (
                not defines_root_agent(best)
                or len(missing_names(joined)) < len(missing_names(best))
            ):
                return joined + "\n"
        return best + "\n"
    whole = text.strip()
    code = _from_json(whole)
    if code is not None and code.strip():
        return code.strip("\n") + "\n"
    if parses(whole) and ("import " in whole or "=" in whole):
        return whole + "\n"
    return None
