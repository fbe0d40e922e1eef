"""Runs PoC 6: ``python -m poc6_sequential_failure [failure|success]``."""

from __future__ import annotations

import asyncio
import logging
import sys

from pyadk import types
from pyadk.models.defaults import get_default_model, set_default_model
from pyadk.runners import InMemoryRunner

from .agent import create_root_agent
from .offline_model import create_offline_model


async def run(scenario: str) -> dict:
    """Runs one scenario, prints its events and returns the final session state."""
    runner = InMemoryRunner(create_root_agent(scenario), app_name="poc6_sequential_failure")
    session = await runner.session_service.create_session(
        app_name=runner.app_name, user_id="poc_user"
    )
    message = types.UserContent("Start the sequence.")
    async for event in runner.run_async(
        user_id="poc_user", session_id=session.id, new_message=message
    ):
        for call in event.get_function_calls():
            print(f"[{event.author}] calls {call.name}({call.args})")
        for response in event.get_function_responses():
            print(f"[{event.author}] {response.name} -> {response.response}")
        if event.text:
            print(f"[{event.author}] {event.text}")
    stored = await runner.session_service.get_session(
        app_name=runner.app_name, user_id="poc_user", session_id=session.id
    )
    assert stored is not None
    return stored.state


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if get_default_model() is None:
        set_default_model(create_offline_model())
    scenario = sys.argv[1] if len(sys.argv) > 1 else "failure"
    state = asyncio.run(run(scenario))
    print("Final state:")
    for key in sorted(state):
        print(f"  {key} = {state[key]}")


if __name__ == "__main__":
    main()
