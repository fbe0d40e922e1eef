"""Child processes for the session conformance suite (``python -m`` this module).

``append URI APP USER SESSION TAG COUNT``: waits for a line on stdin, then appends COUNT
events authored TAG to the session, reloading and retrying whenever another writer
went first; prints ``done <conflicts>``.

``crash URI APP USER SESSION TTL``: runs an agent that calls a tool forever (its turn's
lease lasting TTL seconds after each renewal) and prints the id of every event the
Runner yields, until the parent kills it.

``turns URI APP USER SESSION TAG COUNT``: waits for a line on stdin, then runs COUNT
Runner turns (agent TAG) on the session, waiting for the other process's turns
(``lease_wait``); prints ``done``.
"""

from __future__ import annotations

import asyncio
import sys

from pyadk import types
from pyadk.events.event import Event
from pyadk.sessions.base_session_service import GetSessionConfig
from pyadk.sessions.errors import StaleSessionError
from pyadk.sessions.uri import session_service_from_uri


async def append(uri: str, app: str, user: str, sid: str, tag: str, count: int) -> None:
    service = session_service_from_uri(uri)
    head_only = GetSessionConfig(num_recent_events=1)
    session = await service.get_session(app_name=app, user_id=user, session_id=sid)
    assert session is not None
    print("ready", flush=True)
    sys.stdin.readline()
    conflicts = done = 0
    while done < count:
        try:
            await service.append_event(session, Event(author=tag, invocation_id=f"{tag}-{done}"))
            done += 1
        except StaleSessionError:
            conflicts += 1
            reloaded = await service.get_session(
                app_name=app, user_id=user, session_id=sid, config=head_only
            )
            assert reloaded is not None
            session = reloaded
    print(f"done {conflicts}", flush=True)
    await service.close()


async def crash(uri: str, app: str, user: str, sid: str, ttl: float) -> None:
    from pyadk.agents.llm_agent import LlmAgent
    from pyadk.agents.run_config import RunConfig
    from pyadk.runners import Runner
    from pyadk.testing.scripted_models import FunctionModel, function_call

    def step(i: int) -> dict[str, int]:
        """Does one step of endless work."""
        return {"done": i}

    model = FunctionModel(lambda request: function_call("step", {"i": len(request.contents)}))
    agent = LlmAgent(name="worker", model=model, tools=[step])
    service = session_service_from_uri(uri)
    service.lease_ttl = ttl
    runner = Runner(app_name=app, agent=agent, session_service=service)
    message = types.Content(role="user", parts=[types.Part(text="work forever")])
    async for event in runner.run_async(
        user_id=user, session_id=sid, new_message=message, run_config=RunConfig(max_llm_calls=0)
    ):
        print(event.id, flush=True)


async def turns(uri: str, app: str, user: str, sid: str, tag: str, count: int) -> None:
    from pyadk.agents.llm_agent import LlmAgent
    from pyadk.runners import Runner
    from pyadk.testing.scripted_models import ScriptedModel

    service = session_service_from_uri(uri)
    service.lease_wait = 120.0
    model = ScriptedModel([f"{tag} answers {i}" for i in range(count)])
    runner = Runner(app_name=app, agent=LlmAgent(name=tag, model=model), session_service=service)
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(count):
        message = types.Content(role="user", parts=[types.Part(text=f"{tag} asks {i}")])
        async for _ in runner.run_async(user_id=user, session_id=sid, new_message=message):
            pass
    print("done", flush=True)
    await service.close()


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "append":
        uri, app, user, sid, tag, count = args
        asyncio.run(append(uri, app, user, sid, tag, int(count)))
    elif command == "crash":
        uri, app, user, sid, ttl = args
        asyncio.run(crash(uri, app, user, sid, float(ttl)))
    elif command == "turns":
        uri, app, user, sid, tag, count = args
        asyncio.run(turns(uri, app, user, sid, tag, int(count)))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
