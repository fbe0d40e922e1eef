"""The text that shows few-shot examples to the model, in its system instruction.

Each example is the user's turn, then the model's: its text, its tool calls written
as Python-like calls, and the tools' results as JSON, between ``<EXAMPLES>`` tags.
"""

from __future__ import annotations

import json
from typing import Any

from pyadk import types
from pyadk.examples.base_example_provider import BaseExampleProvider
from pyadk.examples.example import Example

_INTRO = (
    "<EXAMPLES>\n"
    "Few-shot examples follow: user queries and how the model answered them, with the "
    "tools it called and what they returned. Answer new queries in the same way.\n\n"
)
_END = "</EXAMPLES>"


def convert_examples_to_text(examples: list[Example], model: str | None = None) -> str:
    """The examples as system-instruction text (``model`` is accepted for google-adk's
    signature; the text is the same for every model)."""
    blocks = [_example_text(number, example) for number, example in enumerate(examples, 1)]
    return _INTRO + "".join(blocks) + _END


def build_example_si(
    examples: list[Example] | BaseExampleProvider, query: str, model: str | None = None
) -> str:
    """The examples text for ``query``: a list as it is, a provider's examples for it."""
    if isinstance(examples, BaseExampleProvider):
        return convert_examples_to_text(examples.get_examples(query), model)
    if isinstance(examples, list):
        return convert_examples_to_text(examples, model)
    raise TypeError(
        f"Examples must be a list of Example or a BaseExampleProvider, not "
        f"{type(examples).__name__}."
    )


def _example_text(number: int, example: Example) -> str:
    lines = [f"EXAMPLE {number}:", "[user]"]
    lines += [part.text for part in example.input.parts or () if part.text]
    speaker = "user"
    for content in example.output:
        role = "model" if content.role == "model" else "user"
        if role != speaker:
            lines.append(f"[{role}]")
            speaker = role
        lines += [text for part in content.parts or () if (text := _part_text(part))]
    lines.append(f"End of example {number}")
    return "\n".join(lines) + "\n\n"


def _part_text(part: types.Part) -> str:
    if part.function_call is not None:
        call = part.function_call
        args = call.args if isinstance(call.args, dict) else {}
        shown = ", ".join(f"{name}={_literal(value)}" for name, value in args.items())
        return f"```tool_code\n{call.name}({shown})\n```"
    if part.function_response is not None:
        response = part.function_response
        result = json.dumps({"name": response.name, "response": response.response}, default=str)
        return f"```tool_outputs\n{result}\n```"
    return part.text or ""


def _literal(value: Any) -> str:
    return repr(value) if isinstance(value, str) else json.dumps(value, default=str)
