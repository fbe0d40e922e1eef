"""Shows one VANA turn as a chat and a thinking panel: ``python -m vana "message"``.

No server needed: the run's events go through the UI event converter the server uses.
"""

from __future__ import annotations

import asyncio
import json
import sys

from pyadk import types
from pyadk.agents import RunConfig, StreamingMode
from pyadk.runners import InMemoryRunner
from pyadk.server import UiEventConverter

from .agent import create_root_agent

EXAMPLE = "Full review please:\nimport os\npassword = 'hunter22'\nif x == None:\n    print(x)"


async def show(text: str) -> None:
    root = create_root_agent()
    runner = InMemoryRunner(root, app_name="vana")
    session = await runner.session_service.create_session(app_name="vana", user_id="demo")
    converter = UiEventConverter(run_id="demo", root_agent=root)
    chat: dict[str, str] = {}
    events = runner.run_async(
        user_id="demo",
        session_id=session.id,
        new_message=types.UserContent(text),
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    )
    print("thinking panel:")
    async for event in events:
        for ui in converter.convert(event):
            if ui.type == "content":
                chat[ui.message_id] = chat.get(ui.message_id, "") + ui.delta
            elif ui.type == "final":
                chat[ui.message_id] = ui.text
            elif ui.type == "agent_active":
                print(f"  {ui.agent} is working ({ui.reason})")
            elif ui.type == "thinking":
                print(f"  {ui.kind}: {ui.text}")
            elif ui.type == "tool_start":
                print(f"  {ui.agent} -> {ui.tool}({json.dumps(ui.args)[:70]})")
            elif ui.type == "tool_end":
                print(f"  {ui.agent} <- {ui.tool}: {json.dumps(ui.result)[:70]}")
    print("chat:")
    for text in chat.values():
        if text:
            print("  " + text.replace("\n", "\n  ") + "\n")


def main() -> None:
    asyncio.run(show(" ".join(sys.argv[1:]) or EXAMPLE))


if __name__ == "__main__":
    main()
