"""Child process of ``run_adk_agent``: loads a generated agent file and runs one prompt.

Reads ``{"agent_file", "prompt", "model", "max_llm_calls"}`` as JSON on stdin and prints
a transcript on stdout. Exit codes: 0 the run completed, 1 the run raised, 2 the file
could not be loaded or defines no agent, 3 a bad request.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_RUN_ERROR, EXIT_LOAD_ERROR, EXIT_BAD_REQUEST = 0, 1, 2, 3
_TRACEBACK_LINES = 25


def _short(value: Any, limit: int = 500) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


_PYADK_DIR = str(Path(__file__).resolve().parents[2])


def _own_frame(frame: traceback.FrameSummary) -> bool:
    """A frame of the user's code, not of pyadk, the standard library or importlib."""
    name = frame.filename
    return not (name.startswith(("<frozen", _PYADK_DIR)) or "/lib/python3" in name)


def _print_traceback(prefix: str, error: BaseException) -> None:
    """The error with the frames of the generated code only (all frames if none is)."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if _own_frame(f)] or list(frames)
    lines = ["Traceback (most recent call last):"]
    lines += "".join(traceback.format_list(own)).rstrip().splitlines()
    lines += "".join(traceback.format_exception_only(error)).rstrip().splitlines()
    print(prefix)
    print("\n".join(lines[-_TRACEBACK_LINES:]))


def find_root_agent(module: Any) -> Any:
    """``module.root_agent``, else the one top-level agent without a parent."""
    from pyadk.agents import BaseAgent

    agent = getattr(module, "root_agent", None)
    if isinstance(agent, BaseAgent):
        return agent
    roots = [
        value
        for name, value in vars(module).items()
        if not name.startswith("_") and isinstance(value, BaseAgent) and value.parent_agent is None
    ]
    unique = {id(a): a for a in roots}
    if len(unique) == 1:
        return next(iter(unique.values()))
    if agent is not None:
        raise TypeError(f"root_agent is a {type(agent).__name__}, not a pyadk agent")
    raise LookupError("the file defines no module-level variable root_agent")


def override_models(root: Any, model: Any) -> int:
    """Gives every LlmAgent of the tree that names its model by string ``model``."""
    from pyadk.agents import BaseAgent, LlmAgent
    from pyadk.tools import AgentTool

    count = 0
    seen: set[int] = set()
    stack: list[BaseAgent] = [root]
    while stack:
        agent = stack.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        if isinstance(agent, LlmAgent):
            if isinstance(agent.model, str):
                agent.model = model
                count += 1
            stack.extend(t.agent for t in agent.tools if isinstance(t, AgentTool))
        stack.extend(agent._children())
    return count


def describe_event(event: Any) -> list[str]:
    """Transcript lines for one event: texts, tool calls and results, outcome, model error."""
    lines: list[str] = []
    author = event.author
    for part in event.content.parts if event.content and not event.partial else []:
        if part.thought:
            continue
        if part.text and part.text.strip():
            lines.append(f"[{author}] {part.text.strip()}")
        elif part.function_call is not None:
            call = part.function_call
            lines.append(f"[{author}] call {call.name}({_short(call.args or {})})")
        elif part.function_response is not None:
            response = part.function_response
            lines.append(f"[{author}] {response.name} returned {_short(response.response)}")
    outcome = event.actions.agent_outcome
    if outcome is not None:
        lines.append(f"[{author}] outcome {outcome.describe()}")
    if event.error_code:
        lines.append(f"[{author}] model error {event.error_code}: {event.error_message or ''}")
    return lines


async def run_agent(agent: Any, prompt: str, max_llm_calls: int) -> int:
    """Runs ``prompt`` through ``agent`` and prints the transcript; returns the exit code."""
    from pyadk import types
    from pyadk.agents import RunConfig
    from pyadk.runners import InMemoryRunner

    runner = InMemoryRunner(agent, app_name="sandbox")
    session = await runner.session_service.create_session(app_name="sandbox", user_id="tester")
    print(f"[user] {prompt}")
    events = 0
    final = None
    try:
        async for event in runner.run_async(
            user_id="tester",
            session_id=session.id,
            new_message=types.UserContent(prompt),
            run_config=RunConfig(max_llm_calls=max_llm_calls),
        ):
            events += 1
            for line in describe_event(event):
                print(line, flush=True)
            if event.is_final_response() and event.text:
                final = event.text
    except Exception as error:
        _print_traceback(
            f"RUN FAILED after {events} events: {type(error).__name__}: {error}", error
        )
        return EXIT_RUN_ERROR
    stored = await runner.session_service.get_session(
        app_name="sandbox", user_id="tester", session_id=session.id
    )
    state = {k: v for k, v in (stored.state if stored else {}).items() if ":" not in k}
    if state:
        print(f"[state] {_short(state, 1000)}")
    print(f"RUN COMPLETED: {events} events; final response: {_short(final or '(none)', 300)}")
    return EXIT_OK


def main() -> int:
    try:
        request = json.loads(sys.stdin.read())
        agent_file = Path(request["agent_file"])
        prompt = str(request["prompt"])
    except (ValueError, KeyError, TypeError) as error:
        print(f"BAD REQUEST: {error}")
        return EXIT_BAD_REQUEST
    from pyadk.contrib.structured_workflow.model_specs import resolve_model
    from pyadk.contrib.structured_workflow.sandbox import enter_sandbox
    from pyadk.models.defaults import set_default_model

    try:
        model = resolve_model(request.get("model"))
        load = getattr(model, "load", None)
        if callable(load):  # load model weights before untrusted code runs
            load()
    except Exception as error:
        _print_traceback(f"MODEL UNAVAILABLE: {type(error).__name__}: {error}", error)
        return EXIT_BAD_REQUEST
    if model is not None:
        set_default_model(model)
    enter_sandbox()
    from pyadk.contrib._loading import load_module_from_file

    sys.path.insert(0, str(agent_file.parent))
    try:
        module = load_module_from_file(agent_file, "generated_agent")
        agent = find_root_agent(module)
    except BaseException as error:
        _print_traceback(f"LOAD FAILED: {type(error).__name__}: {error}", error)
        return EXIT_LOAD_ERROR
    if model is not None:
        override_models(agent, model)
    return asyncio.run(run_agent(agent, prompt, int(request.get("max_llm_calls", 20))))


if __name__ == "__main__":
    sys.exit(main())
