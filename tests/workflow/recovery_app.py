"""A graph workflow used by the recovery tests, in the test process and in a child
process killed while one of its nodes runs. Every node run is logged to a file, so
runs in both processes are counted."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pyadk.workflow import START, JoinNode, Workflow, node


def order_workflow(log: Path, hang_marker: Path | None = None) -> Workflow:
    """prepare -> (enrich, charge) -> join -> report. With ``hang_marker``, ``charge``
    writes that file and then blocks (the process is killed there)."""

    def ran(name: str) -> None:
        with log.open("a") as file:
            file.write(name + "\n")

    def prepare(node_input: Any) -> dict[str, Any]:
        ran("prepare")
        return {"order": 7}

    def enrich(node_input: dict[str, Any]) -> str:
        ran("enrich")
        return f"order {node_input['order']} enriched"

    async def charge(node_input: dict[str, Any]) -> str:
        ran("charge")
        if hang_marker is not None:
            hang_marker.write_text("charging")
            await asyncio.sleep(600)  # killed here
        return f"order {node_input['order']} charged"

    def report(node_input: dict[str, str]) -> str:
        ran("report")
        return f"{node_input['enrich']}; {node_input['charge']}"

    join = JoinNode(name="join")
    return Workflow(
        name="orders",
        edges=[(START, node(prepare), (node(enrich), node(charge)), join, node(report))],
    )
