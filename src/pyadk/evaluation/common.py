"""The base of the evaluation file models: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class EvalBaseModel(BaseModel):
    """Accepts both ``evalId`` and ``eval_id``; unknown fields are an error."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
    )


def read_json_file(path: Path, what: str, error: type[ValueError]) -> Any:
    """The JSON in ``path``; ``error`` naming ``what`` and the file when it is missing or
    not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{what[0].upper()}{what[1:]} file not found: {path}") from None
    except (OSError, ValueError) as problem:
        raise error(f"Cannot read {what} {path}: {problem}") from problem
