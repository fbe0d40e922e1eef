"""Runs the ```python examples of every docs/*.md page, in order, one namespace per page.

A block fenced as ```python no-run is shown but not executed. Line numbers in a failing
example's traceback are the lines of the Markdown page.
"""

from __future__ import annotations

import re
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    number: int  # 1-based, counting every python block of the page
    line: int  # 1-based line of the first code line in the page
    code: str
    run: bool


def python_blocks(text: str) -> list[Block]:
    """The fenced ```python blocks of a Markdown text, in order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        index += 1
        if match is None:
            continue
        fence, info = match["fence"], match["info"].split()
        start = index
        while index < len(lines) and not lines[index].strip().startswith(fence):
            index += 1
        if index >= len(lines):
            raise ValueError(f"unclosed code fence opened on line {start}")
        body = lines[start:index]
        index += 1
        if not info or info[0] != "python":
            continue
        indent = len(match["indent"])
        code = "\n".join(line[indent:] for line in body)
        blocks.append(Block(len(blocks) + 1, start + 1, code, "no-run" not in info[1:]))
    return blocks


def run_page(path: Path) -> int:
    """Executes the runnable blocks of ``path`` in one module namespace; returns how many."""
    module_name = f"_docs_example_{path.stem}"
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module  # dataclasses, pickling and typing look modules up
    ran = 0
    try:
        for block in python_blocks(path.read_text(encoding="utf-8")):
            if not block.run:
                continue
            # Padding keeps traceback line numbers equal to the page's line numbers.
            source = "\n" * (block.line - 1) + block.code
            failure = None
            try:
                exec(compile(source, str(path), "exec"), module.__dict__)
            except (Exception, SystemExit) as exc:  # reported with the page and block
                failure = (
                    f"{path.name}: python block {block.number} (line {block.line}) failed: "
                    f"{type(exc).__name__}: {exc}\n\n" + "".join(traceback.format_exception(exc))
                )
            if failure is not None:
                pytest.fail(failure, pytrace=False)
            ran += 1
    finally:
        sys.modules.pop(module_name, None)
    return ran


PAGES = sorted(DOCS_DIR.glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_examples_run(page: Path) -> None:
    ran = run_page(page)
    if ran == 0:
        pytest.skip(f"{page.name} has no runnable python examples")


@pytest.mark.parametrize(
    "page", ["concepts", "callbacks", "tools", "sessions", "testing", "compatibility"]
)
def test_core_pages_have_runnable_examples(page: str) -> None:
    path = DOCS_DIR / f"{page}.md"
    assert path.is_file(), f"missing {path}"
    assert any(block.run for block in python_blocks(path.read_text(encoding="utf-8")))


def test_block_parser_numbers_blocks_and_honours_no_run() -> None:
    text = "\n".join(
        [
            "# Title",  # 1
            "```python",  # 2
            "x = 1",  # 3
            "```",  # 4
            "```bash",  # 5
            "echo hi",  # 6
            "```",  # 7
            "```python no-run",  # 8
            "raise SystemExit",  # 9
            "```",  # 10
            "- item",  # 11
            "  ```python",  # 12
            "  y = x + 1",  # 13
            "  ```",  # 14
        ]
    )
    blocks = python_blocks(text)
    assert [(b.number, b.line, b.code, b.run) for b in blocks] == [
        (1, 3, "x = 1", True),
        (2, 9, "raise SystemExit", False),
        (3, 13, "y = x + 1", True),
    ]
    with pytest.raises(ValueError, match="unclosed code fence opened on line 1"):
        python_blocks("```python\nx = 1\n")


def test_failing_example_reports_page_block_and_line(tmp_path: Path) -> None:
    page = tmp_path / "broken.md"
    page.write_text(
        "Intro\n\n```python\nvalue = 41\n```\n\n```python\nassert value == 42, value\n```\n",
        encoding="utf-8",
    )
    with pytest.raises(pytest.fail.Exception) as failure:
        run_page(page)
    message = str(failure.value)
    assert "broken.md: python block 2 (line 8) failed: AssertionError: 41" in message
    assert f'File "{page}", line 8' in message
