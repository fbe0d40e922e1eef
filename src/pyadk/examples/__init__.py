"""Few-shot examples for agents: :class:`Example`, providers, and their prompt text
(shown to the model by :class:`~pyadk.tools.example_tool.ExampleTool`)."""

from pyadk.examples.base_example_provider import BaseExampleProvider
from pyadk.examples.example import Example
from pyadk.examples.example_util import build_example_si, convert_examples_to_text

__all__ = ["BaseExampleProvider", "Example", "build_example_si", "convert_examples_to_text"]
