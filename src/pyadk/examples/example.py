"""Example: one few-shot example, a user's input and the model's turn that followed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from pyadk import types


class Example(BaseModel):
    """A user's ``input`` and the ``output`` contents that answered it (the model's
    tool calls, the tool results, its text)."""

    model_config = ConfigDict(defer_build=True)

    input: types.Content
    output: list[types.Content]
