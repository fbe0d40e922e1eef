"""Plays a simulated user against the agent: the user simulator writes each message
from the conversation so far, the agent answers, until the simulator stops."""

from __future__ import annotations

import copy
import logging

from pyadk.evaluation.app_details import AppDetailsRecorder
from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.evaluation_generator import invocation_from_events
from pyadk.evaluation.simulation.user_simulator import Status, UserSimulator
from pyadk.events.event import Event
from pyadk.runners import Runner

logger = logging.getLogger(__name__)

USER_AUTHOR = "user"


async def generate_simulated_invocations(
    runner: Runner,
    user_simulator: UserSimulator,
    *,
    user_id: str,
    session_id: str,
    app_details: AppDetailsRecorder | None = None,
) -> tuple[list[Invocation], Status]:
    """The invocations of the simulated conversation, on one session, and why it ended
    (the simulator's stop signal, its turn limit, ...). The simulator sees a copy of
    every event so far, each user message as an event authored by ``user``."""
    events: list[Event] = []
    invocations: list[Invocation] = []
    while True:
        answer = await user_simulator.get_next_user_message(copy.deepcopy(events))
        if answer.status is not Status.SUCCESS or answer.user_message is None:
            logger.info("Simulated conversation ended: %s", answer.status.value)
            return invocations, answer.status
        message = answer.user_message
        if app_details is not None:
            app_details.reset()
        turn = [
            event
            async for event in runner.run_async(
                user_id=user_id, session_id=session_id, new_message=message
            )
        ]
        invocation_id = turn[0].invocation_id if turn else ""
        events.append(Event(author=USER_AUTHOR, content=message, invocation_id=invocation_id))
        events.extend(turn)
        invocation = invocation_from_events(message, turn)
        if app_details is not None:
            invocation.app_details = app_details.app_details()
        invocations.append(invocation)
