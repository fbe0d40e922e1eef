"""SingleFlow: an agent that answers itself and uses tools, without transfers."""

from __future__ import annotations

from pyadk.flows.base_llm_flow import BaseLlmFlow
from pyadk.flows.processors import basic, contents, identity, instructions, output_schema


class SingleFlow(BaseLlmFlow):
    """Request processors: basic, instructions, identity, contents, output schema."""

    def __init__(self) -> None:
        super().__init__()
        self.request_processors += [
            basic.request_processor,
            instructions.request_processor,
            identity.request_processor,
            contents.request_processor,
            output_schema.request_processor,
        ]
