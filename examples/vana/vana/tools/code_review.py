"""review_code: a small, regex-based Python linter."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

MAX_LINE = 100
MAX_LISTED = 50

RULES: list[tuple[str, re.Pattern[str], str]] = [
    ("bare-except", re.compile(r"^\s*except\s*:"), "bare `except:` hides every error"),
    ("none-comparison", re.compile(r"[=!]=\s*None\b"), "compare with None using `is`"),
    (
        "wildcard-import",
        re.compile(r"^\s*from\s+\S+\s+import\s+\*"),
        "wildcard import hides where names come from",
    ),
    (
        "mutable-default",
        re.compile(r"^\s*(?:async\s+)?def\s+\w+\(.*=\s*(?:\[\]|\{\}|set\(\))"),
        "mutable default argument is shared between calls",
    ),
    ("debug-print", re.compile(r"^\s*print\("), "debug print left in the code"),
    ("todo", re.compile(r"\b(?:TODO|FIXME|XXX|HACK)\b"), "unfinished work marker"),
    ("trailing-whitespace", re.compile(r"[ \t]+$"), "trailing whitespace"),
]


def review_code(code: str) -> dict[str, Any]:
    """Reviews source code for common problems (Python-oriented, line by line).

    Args:
      code: the source code to review, exactly as the user gave it.

    Returns:
      lines: the number of lines; issue_count: how many issues were found;
      by_rule: issues per rule; issues: the first 50 as {line, rule, message}.
    """
    lines = code.splitlines()
    issues: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            issues.append(
                {
                    "line": number,
                    "rule": "line-too-long",
                    "message": f"line is {len(line)} characters (limit {MAX_LINE})",
                }
            )
        for rule, pattern, message in RULES:
            if pattern.search(line):
                issues.append({"line": number, "rule": rule, "message": message})
    return {
        "lines": len(lines),
        "issue_count": len(issues),
        "by_rule": dict(Counter(issue["rule"] for issue in issues)),
        "issues": issues[:MAX_LISTED],
    }
