"""Runs PoC 6 with policies: ``python -m poc6_policies [failure|success]``."""

from __future__ import annotations

import asyncio
import logging
import sys

from pyadk import types
from pyadk.agents import RunConfig
from pyadk.models.defaults import get_default_model, set_default_model
from pyadk.runners import InMemoryRunner

from .agent import create_root_agent
from .offline_model import create_offline_model


async def run(scenario: str) -> None:
    """Runs one scenario and prints the answers and every agent's outcome."""
    runner = InMemoryRunner(create_root_agent(scenario), app_name="poc6_policies")
    session = await runner.session_service.create_session(app_name="poc6_policies", user_id="u")
    async for event in runner.run_async(
        user_id="u",
        session_id=session.id,
        new_message=types.UserContent("Start the sequence."),
        run_config=RunConfig(record_outcomes="all"),
    ):
        if event.text:
            print(f"[{event.author}] {event.text}")
        if event.actions.agent_outcome is not None:
            print(f"  outcome of {event.author}: {event.actions.agent_outcome.describe()}")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if get_default_model() is None:
        set_default_model(create_offline_model())
    asyncio.run(run(sys.argv[1] if len(sys.argv) > 1 else "failure"))


if __name__ == "__main__":
    main()
