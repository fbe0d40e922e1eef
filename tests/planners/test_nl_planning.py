"""Planners in an agent's flow: real runner, scripted model, the requests it received."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from pydantic import BaseModel

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig, StreamingMode
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.flows.processors import nl_planning
from pyadk.flows.processors.contents import ContentsRequestProcessor
from pyadk.flows.processors.output_schema import OutputSchemaRequestProcessor
from pyadk.flows.single_flow import SingleFlow
from pyadk.models.llm_request import LlmRequest
from pyadk.planners import BasePlanner, PlanReActPlanner
from pyadk.planners.plan_re_act_planner import FINAL_ANSWER_TAG, PLANNING_TAG, REASONING_TAG
from pyadk.testing import ScriptedModel, Stream, TestRunner, function_call

PLAN = f"{PLANNING_TAG}1. look up the city\n2. answer\n"


def lookup(city: str) -> dict[str, str]:
    """Looks a city up."""
    return {"city": city, "country": "France"}


def parts_of(event: Any) -> list[tuple[str, Any]]:
    return [
        ("call", p.function_call.name)
        if p.function_call
        else ("response", p.function_response.name)
        if p.function_response
        else ("thought" if p.thought else "text", p.text)
        for p in event.content.parts
    ]


def react_agent(model: ScriptedModel, **extra: Any) -> LlmAgent:
    return LlmAgent(
        name="root",
        model=model,
        instruction="Answer briefly.",
        tools=[lookup],
        planner=PlanReActPlanner(),
        **extra,
    )


async def test_the_planning_instruction_follows_identity_and_precedes_transfer_and_schema() -> None:
    class Answer(BaseModel):
        country: str

    model = ScriptedModel(["ok"])
    helper = LlmAgent(name="helper", model=ScriptedModel([]))
    agent = react_agent(model, output_schema=Answer, sub_agents=[helper])

    await TestRunner(agent).run("hi")

    instruction = model.requests[0].config.system_instruction
    planning = PlanReActPlanner().build_planning_instruction(None, None)  # type: ignore[arg-type]
    identity = instruction.index('"root"')
    at = instruction.index(planning)
    assert instruction.startswith("Answer briefly.")
    assert identity < at
    assert at < instruction.index("set_model_response")
    assert at < instruction.index("helper")


async def test_reasoning_becomes_thoughts_and_only_the_final_answer_is_stored() -> None:
    model = ScriptedModel(
        [
            [
                types.Part(text=PLAN),
                function_call("lookup", {"city": "Paris"}),
                types.Part(text="text after the call is dropped"),
            ],
            f"{REASONING_TAG}Paris is in France.\n{FINAL_ANSWER_TAG}France.",
        ]
    )
    runner = TestRunner(react_agent(model, output_key="answer"))

    events = await runner.run("Which country is Paris in?")

    assert [parts_of(e) for e in events] == [
        [("thought", "1. look up the city\n2. answer\n"), ("call", "lookup")],
        [("response", "lookup")],
        [("thought", "Paris is in France.\n"), ("text", "France.")],
    ]
    assert events[-1].is_final_response() and events[-1].content.text == "France."
    assert (await runner.state())["answer"] == "France."
    stored = (await runner.session()).events
    assert [parts_of(e) for e in stored[1:]] == [parts_of(e) for e in events]


async def test_later_calls_read_earlier_reasoning_as_plain_text_like_google_adk() -> None:
    # google-adk strips the thought flags from the history of a planner agent: the model
    # reads its own plan and reasoning again, as plain text. Responses made of thoughts
    # only are left out, and the stored events keep their thought flags.
    model = ScriptedModel(
        [
            [types.Part(text=PLAN), function_call("lookup", {"city": "Paris"})],
            f"{REASONING_TAG}in France{FINAL_ANSWER_TAG}France.",
            f"{PLANNING_TAG}a plan and nothing else",
            "Bye.",
        ]
    )
    runner = TestRunner(react_agent(model))

    await runner.run("Which country is Paris in?")
    await runner.run("Thanks")
    await runner.run("Bye")

    second, last = model.requests[1], model.requests[3]
    assert not any(p.thought for c in last.contents for p in c.parts or [])
    assert [p.text for p in second.contents[1].parts] == ["1. look up the city\n2. answer\n", None]
    texts = [p.text for c in last.contents for p in c.parts or [] if p.text]
    assert texts == [
        "Which country is Paris in?",
        "1. look up the city\n2. answer\n",
        "in France",
        "France.",
        "Thanks",
        "Bye",
    ]
    stored = (await runner.session()).events
    assert [p.thought for p in stored[1].content.parts] == [True, None]
    assert parts_of(stored[5]) == [("thought", "a plan and nothing else")]


async def test_thoughts_are_unmarked_in_the_request_also_for_model_callbacks() -> None:
    seen: list[list[bool | None]] = []

    def before_model(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        seen.append([p.thought for c in llm_request.contents for p in c.parts or []])

    model = ScriptedModel(
        [[types.Part(text=PLAN), function_call("lookup", {"city": "Rome"})], "Italy."]
    )
    runner = TestRunner(react_agent(model, before_model_callback=before_model))

    await runner.run("Rome?")

    assert seen == [[None], [None, None, None, None]]
    assert (await runner.session()).events[1].content.parts[0].thought is True


async def test_an_agent_without_a_planner_has_no_planning_processors() -> None:
    agent = LlmAgent(name="root", model=ScriptedModel(["hi", "again"]))
    runner = TestRunner(agent)
    await runner.run("hello")

    flow = agent._llm_flow
    assert nl_planning.request_processor not in flow.request_processors
    assert nl_planning.response_processor not in flow.response_processors

    agent.planner = PlanReActPlanner()  # a planner given later is used from the next turn
    await runner.run("hello again")

    flow = agent._llm_flow
    assert nl_planning.request_processor in flow.request_processors
    assert flow.response_processors == [nl_planning.response_processor]


def test_install_puts_the_request_processor_after_contents_once() -> None:
    flow = SingleFlow()
    nl_planning.install(flow)
    nl_planning.install(flow)

    kinds = [type(p) for p in flow.request_processors]
    at = flow.request_processors.index(nl_planning.request_processor)
    assert kinds[at - 1] is ContentsRequestProcessor
    assert kinds[at + 1] is OutputSchemaRequestProcessor
    assert flow.request_processors.count(nl_planning.request_processor) == 1
    assert flow.response_processors == [nl_planning.response_processor]


class Shouting(BasePlanner):
    """A custom planner: an instruction, upper-cased answers, a state note."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str | None:
        self.seen.append(readonly_context.agent_name)
        return "Think in capitals."

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        callback_context.state["planned"] = True
        return [types.Part(text=(p.text or "").upper()) for p in response_parts]


async def test_a_custom_planner_adds_its_instruction_rewrites_and_records_state() -> None:
    model = ScriptedModel(["quiet answer"])
    planner = Shouting()
    runner = TestRunner(LlmAgent(name="root", model=model, planner=planner, output_key="out"))

    events = await runner.run("hi")

    assert planner.seen == ["root"]
    assert model.requests[0].config.system_instruction.endswith("Think in capitals.")
    assert [(e.content, e.actions.state_delta) for e in events] == [
        (None, {"planned": True}),
        (events[1].content, {"out": "QUIET ANSWER"}),
    ]
    assert events[1].content.text == "QUIET ANSWER"
    assert await runner.state() == {"planned": True, "out": "QUIET ANSWER"}


class Silent(BasePlanner):
    """Adds nothing and keeps every response."""

    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str | None:
        return None

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        return None


async def test_a_planner_returning_none_leaves_the_response_unchanged() -> None:
    reply = [types.Part(text=f"{PLANNING_TAG}tagged"), function_call("lookup", {"city": "Oslo"})]
    model = ScriptedModel([reply, "Norway."])
    plain_model = ScriptedModel([reply, "Norway."])
    agent = LlmAgent(name="root", model=model, tools=[lookup], planner=Silent(), instruction="x")
    plain = LlmAgent(name="root", model=plain_model, tools=[lookup], instruction="x")

    events = await TestRunner(agent).run("Oslo?")
    await TestRunner(plain).run("Oslo?")

    assert [parts_of(e) for e in events] == [
        [("text", f"{PLANNING_TAG}tagged"), ("call", "lookup")],
        [("response", "lookup")],
        [("text", "Norway.")],
    ]
    assert model.requests[0].config == plain_model.requests[0].config


def test_a_planner_must_implement_both_methods() -> None:
    class Half(BasePlanner):
        def build_planning_instruction(self, readonly_context: Any, llm_request: Any) -> None:
            return None

    try:
        Half()  # type: ignore[abstract]
    except TypeError as error:
        assert "process_planning_response" in str(error)
    else:
        raise AssertionError("expected TypeError")


async def test_sse_chunks_are_rewritten_one_by_one_like_google_adk() -> None:
    # Each streamed chunk goes through the planner on its own (as in google-adk): a
    # chunk continuing a plan without a tag of its own shows as text until the
    # aggregated event, which is split as a whole.
    model = ScriptedModel(
        [Stream([f"{PLANNING_TAG}1. look", " it up\n", f"{FINAL_ANSWER_TAG}Paris"])]
    )
    runner = TestRunner(react_agent(model, output_key="answer"))

    events = await runner.run(
        "Capital of France?", run_config=RunConfig(streaming_mode=StreamingMode.SSE)
    )

    assert [(e.partial, parts_of(e)) for e in events] == [
        (True, [("thought", "1. look")]),
        (True, [("text", " it up\n")]),
        (True, [("text", "Paris")]),
        (None, [("thought", "1. look it up\n"), ("text", "Paris")]),
    ]
    assert (await runner.state())["answer"] == "Paris"


def test_the_core_import_loads_only_the_base_planner() -> None:
    code = (
        "import sys\n"
        "from pyadk.agents import LlmAgent\n"
        "from pyadk.runners import InMemoryRunner\n"
        "print(sorted(m for m in sys.modules if 'plan' in m))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['pyadk.planners', 'pyadk.planners.base_planner']"


async def test_a_long_cached_history_is_not_changed_by_the_unmarking() -> None:
    # Past MIN_CACHED_CONTENTS the history builder reuses its contents between steps:
    # the planner must replace, never edit, the ones it unmarks.
    turns = 6
    model = ScriptedModel(
        [f"{REASONING_TAG}thinking {i}{FINAL_ANSWER_TAG}answer {i}" for i in range(turns)]
    )
    runner = TestRunner(react_agent(model))

    for i in range(turns):
        await runner.run(f"question {i}")

    last = model.requests[-1].contents
    assert len(last) == 2 * turns - 1
    assert not any(p.thought for c in last for p in c.parts or [])
    assert [p.text for p in last[-2].parts] == ["thinking 4", "answer 4"]
    events = (await runner.session()).events
    assert all(e.content.parts[0].thought for e in events if e.author == "root")
    assert all(p.thought is None for p in last[1].parts)
    assert model.requests[-2].contents[1].parts[0].thought is None


def test_with_a_code_executor_too_planning_runs_first_as_in_google_adk() -> None:
    from pyadk.code_executors import BaseCodeExecutor
    from pyadk.flows.processors import code_execution

    class Executor(BaseCodeExecutor):
        def execute_code(self, invocation_context: Any, code_execution_input: Any) -> Any:
            raise AssertionError("not called")

    agent = LlmAgent(
        name="root", model=ScriptedModel([]), planner=PlanReActPlanner(), code_executor=Executor()
    )

    flow = agent._llm_flow
    kinds = [type(p) for p in flow.request_processors]
    at = flow.request_processors.index(nl_planning.request_processor)
    assert kinds[at - 1] is ContentsRequestProcessor
    assert flow.request_processors[at + 1] is code_execution.request_processor
    assert kinds[at + 2] is OutputSchemaRequestProcessor
    assert flow.response_processors == [
        nl_planning.response_processor,
        code_execution.response_processor,
    ]
