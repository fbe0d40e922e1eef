"""JSON for streams that must not break on a value JSON cannot hold."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError


def model_json(model: BaseModel, *, exclude_none: bool) -> dict[str, Any]:
    """``model`` as camelCase JSON data; a value JSON cannot hold (an object a tool
    returned, say) becomes its ``repr`` instead of an exception that cuts the stream."""
    try:
        return model.model_dump(mode="json", by_alias=True, exclude_none=exclude_none)
    except PydanticSerializationError:
        data = model.model_dump(mode="python", by_alias=True, exclude_none=exclude_none)
        loaded: dict[str, Any] = json.loads(json.dumps(data, default=repr))
        return loaded
