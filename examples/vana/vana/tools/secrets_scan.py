"""scan_for_secrets: finds credentials pasted into text, and never repeats them."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

PATTERNS: list[tuple[str, str, re.Pattern[str]]] = [
    ("aws-access-key-id", "high", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "private-key",
        "high",
        re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----"),
    ),
    ("github-token", "high", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("slack-token", "high", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    (
        "jwt",
        "medium",
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    (
        "url-credentials",
        "high",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^@\s/]+@", re.IGNORECASE),
    ),
    (
        "hardcoded-credential",
        "medium",
        re.compile(
            r"\b(?:password|passwd|pwd|secret|api[_-]?key|auth[_-]?token|access[_-]?token"
            r"|token)\b['\"]?\s*[:=]\s*['\"][^'\"\s]{4,}['\"]",
            re.IGNORECASE,
        ),
    ),
]


def redact(secret: str) -> str:
    """The first 4 characters and the length: enough to find it, useless to an attacker."""
    return f"{secret[:4]}... ({len(secret)} chars)"


def scan_for_secrets(text: str) -> dict[str, Any]:
    """Scans text or code for secrets: cloud keys, tokens, private keys, passwords.

    Args:
      text: the text or code to scan, exactly as the user gave it.

    Returns:
      lines_scanned; count: the number of findings; by_kind: findings per kind;
      findings: {line, kind, severity, match} where match is redacted.
    """
    lines = text.splitlines()
    findings: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        for kind, severity, pattern in PATTERNS:
            for match in pattern.finditer(line):
                findings.append(
                    {
                        "line": number,
                        "kind": kind,
                        "severity": severity,
                        "match": redact(match.group(0)),
                    }
                )
    return {
        "lines_scanned": len(lines),
        "count": len(findings),
        "by_kind": dict(Counter(f["kind"] for f in findings)),
        "findings": findings,
    }
