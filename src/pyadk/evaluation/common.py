"""The base of the evaluation file models: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pyadk.types import _Base


class EvalBaseModel(_Base):
    """Accepts both ``evalId`` and ``eval_id``; unknown fields are an error (the content
    types' camelCase model configuration)."""


def read_json_file(path: Path, what: str, error: type[ValueError]) -> Any:
    """The JSON in ``path``; ``error`` naming ``what`` and the file when it is missing or
    not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{what[0].upper()}{what[1:]} file not found: {path}") from None
    except (OSError, ValueError) as problem:
        raise error(f"Cannot read {what} {path}: {problem}") from problem
