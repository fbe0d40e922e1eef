"""Extracting the code from a candidate answer."""

from __future__ import annotations

import json

from pyadk.contrib.structured_workflow.code_extraction import (
    defines_root_agent,
    extract_code,
    fenced_blocks,
)

AGENT = 'from pyadk.agents import LlmAgent\n\nroot_agent = LlmAgent(name="a")\n'


def test_python_block_after_rationale() -> None:
    text = f"I will write an agent.\n\n```python\n{AGENT}```\nThat's it."
    assert extract_code(text) == AGENT


def test_prefers_the_block_defining_root_agent_over_a_longer_snippet() -> None:
    snippet = "# usage example, not the agent\n" + "x = 1\n" * 20
    text = f"```python\n{snippet}```\nFinal file:\n```python\n{AGENT}```"
    assert extract_code(text) == AGENT


def test_prefers_a_block_that_parses() -> None:
    broken = "def broken(:\n    pass\n" * 5
    text = f"```python\n{broken}```\n```python\nx = 1\n```"
    assert extract_code(text) == "x = 1\n"


def test_joins_blocks_that_only_together_define_root_agent() -> None:
    tools = 'def add(a: int, b: int) -> int:\n    """Adds."""\n    return a + b\n'
    agent = 'root_agent = LlmAgent(name="a", tools=[add])\n'
    code = extract_code(f"Tools:\n```python\n{tools}```\nAgent:\n```py\n{agent}```")
    assert code is not None and defines_root_agent(code)
    assert code.index("def add") < code.index("root_agent")


def test_untagged_block_and_misplaced_language_line() -> None:
    assert extract_code(f"```\n{AGENT}```") == AGENT
    assert extract_code(f"```\npython\n{AGENT}```") == AGENT


def test_json_block_with_code_field() -> None:
    payload = json.dumps({"rationale": "simple", "code": AGENT})
    assert extract_code(f"```json\n{payload}\n```") == AGENT


def test_unclosed_block_is_taken_to_the_end() -> None:
    assert extract_code(f"Here:\n```python\n{AGENT}") == AGENT


def test_tilde_fences_and_longer_fences() -> None:
    assert extract_code(f"~~~python\n{AGENT}~~~") == AGENT
    inner = 'doc = """\n```python\nx = 1\n```\n"""\n' + AGENT
    assert extract_code(f"````python\n{inner}````") == inner


def test_plain_code_without_fences() -> None:
    assert extract_code(AGENT) == AGENT
    assert extract_code(json.dumps({"code": AGENT})) == AGENT


def test_no_code() -> None:
    assert extract_code(None) is None
    assert extract_code("   ") is None
    assert extract_code("I could not write the agent, sorry.") is None
    assert extract_code("```bash\nls -la\n```") is None


def test_fenced_blocks_reports_language_and_closure() -> None:
    blocks = fenced_blocks("a\n```Python\nx = 1\n```\n```\nopen")
    assert [(b.lang, b.code, b.closed) for b in blocks] == [
        ("python", "x = 1", True),
        ("", "open", False),
    ]


def test_defines_root_agent_needs_a_module_level_assignment() -> None:
    assert defines_root_agent("root_agent: object = 1")
    assert not defines_root_agent("def f():\n    root_agent = 1\n")
    assert not defines_root_agent("root_agent = (")


def test_a_block_opened_inside_an_unclosed_block_starts_a_new_one() -> None:
    # Seen from a small model: the first block is never closed.
    text = f"```python\n{AGENT}\n# Example of a complete file:\n```python\nx = 1\n```"
    blocks = fenced_blocks(text)
    assert [(b.code.strip(), b.closed) for b in blocks] == [
        (AGENT.strip() + "\n\n# Example of a complete file:", False),
        ("x = 1", True),
    ]
    assert extract_code(text) == AGENT + "\n# Example of a complete file:\n"
