"""AutoFlow: SingleFlow plus transfers to sub-agents, parent and peers."""

from __future__ import annotations

from pyadk.flows.processors import agent_transfer
from pyadk.flows.single_flow import SingleFlow


class AutoFlow(SingleFlow):
    """SingleFlow with the agent-transfer processor appended."""

    def __init__(self) -> None:
        super().__init__()
        self.request_processors.append(agent_transfer.request_processor)
