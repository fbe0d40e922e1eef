"""Agents as nodes: LLM nodes, nested workflows, workflow agents, a Workflow as an agent."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from wf_support import outputs

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig, SequentialAgent, StreamingMode
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import ScriptedModel, Stream, TestRunner
from pyadk.workflow import START, Context, JoinNode, Workflow, node_output


def _texts(request: LlmRequest) -> list[str]:
    return [p.text for c in request.contents for p in c.parts or [] if p.text]


async def test_llm_node_gets_the_previous_output_as_its_only_message_and_outputs_its_answer():
    model = ScriptedModel(["Paris"])
    writer = LlmAgent(name="writer", model=model, instruction="Answer briefly.")

    def ask(node_input: types.Content) -> str:
        return "Capital of France?"

    def shout(node_input: str) -> str:
        return node_input.upper()

    wf = Workflow(name="wf", edges=[(START, ask, writer, shout)])
    runner = TestRunner(wf)
    events = await runner.run("please look this up")
    # single-turn: the model sees the node input, not the earlier conversation
    assert _texts(model.requests[0]) == ["Capital of France?"]
    assert outputs(events) == [("ask", "Capital of France?"), ("shout", "PARIS")]
    stored = (await runner.session()).events
    assert [(e.author, e.text) for e in stored if e.content] == [
        ("user", "please look this up"),
        ("user", "Capital of France?"),  # the node input, kept in the session
        ("writer", "Paris"),
    ]


async def test_first_llm_node_sees_the_user_message_and_dict_inputs_arrive_as_json():
    first_model = ScriptedModel(["summary"])
    second_model = ScriptedModel(["ok"])
    first = LlmAgent(name="first", model=first_model)
    second = LlmAgent(name="second", model=second_model)

    def pack(node_input: str) -> dict[str, Any]:
        return {"summary": node_input, "n": 1}

    wf = Workflow(name="wf", edges=[(START, first, pack, second)])
    await TestRunner(wf).run("long text")
    assert _texts(first_model.requests[0]) == ["long text"]
    assert _texts(second_model.requests[0]) == ['{"summary": "summary", "n": 1}']


class Verdict(BaseModel):
    label: str
    score: float


async def test_output_schema_and_output_key_of_an_llm_node():
    judge = LlmAgent(
        name="judge",
        model=ScriptedModel(['{"label": "good", "score": 0.9}']),
        output_schema=Verdict,
        output_key="verdict",
    )

    def route(node_input: dict[str, Any], ctx: Context) -> str:
        ctx.route = node_input["label"]
        return node_input["label"]

    def good(node_input: str) -> str:
        return "accepted"

    def bad(node_input: str) -> str:
        return "rejected"

    wf = Workflow(name="wf", edges=[(START, judge, route, {"good": good, "bad": bad})])
    runner = TestRunner(wf)
    events = await runner.run("rate this")
    assert outputs(events) == [("route", "good"), ("good", "accepted")]
    assert (await runner.state())["verdict"] == {"label": "good", "score": 0.9}


async def test_llm_nodes_in_parallel_branches_each_see_their_own_input():
    model_a = ScriptedModel(["A says hi"])
    model_b = ScriptedModel(["B says hi"])

    def topic_a(node_input: Any) -> str:
        return "topic a"

    def topic_b(node_input: Any) -> str:
        return "topic b"

    agent_a = LlmAgent(name="agent_a", model=model_a)
    agent_b = LlmAgent(name="agent_b", model=model_b)
    join = JoinNode(name="join")
    wf = Workflow(
        name="wf",
        edges=[(START, (topic_a, topic_b)), (topic_a, agent_a, join), (topic_b, agent_b, join)],
    )
    events = await TestRunner(wf).run("go")
    assert _texts(model_a.requests[0]) == ["topic a"]
    assert _texts(model_b.requests[0]) == ["topic b"]
    assert dict(outputs(events))["join"] == {"agent_a": "A says hi", "agent_b": "B says hi"}
    answers = {e.author: e.branch for e in events if e.content and e.author.startswith("agent")}
    assert answers == {"agent_a": "wf.topic_a", "agent_b": "wf.topic_b"}


async def test_a_nested_workflow_takes_the_input_and_outputs_its_terminal_output():
    def inner_step(node_input: str) -> str:
        return f"inner({node_input})"

    inner = Workflow(name="inner", edges=[(START, inner_step)])

    def before() -> str:
        return "x"

    def after(node_input: str) -> str:
        return f"after({node_input})"

    outer = Workflow(name="outer", edges=[(START, before, inner, after)])
    events = await TestRunner(outer).run("go")
    paths = [e.custom_metadata["node_info"]["path"] for e in events if e.custom_metadata]
    assert paths == ["outer@1/before@1", "outer@1/inner@1/inner_step@1", "outer@1/after@1"]
    assert [node_output(e) for e in events if e.custom_metadata] == [
        "x",
        "inner(x)",
        "after(inner(x))",
    ]
    assert events[1].author == "inner"


async def test_a_workflow_agent_as_node_and_a_workflow_as_a_sub_agent():
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="draft", model=ScriptedModel(["draft text"])),
            LlmAgent(name="polish", model=ScriptedModel(["polished text"])),
        ],
    )

    def wrap(node_input: str) -> str:
        return f"<{node_input}>"

    graph = Workflow(name="graph", edges=[(START, pipeline, wrap)])
    events = await TestRunner(graph).run("write")
    assert outputs(events) == [("wrap", "<polished text>")]

    def tag(node_input: types.Content) -> str:
        return "tagged"

    tagged = Workflow(name="tagged", edges=[(START, tag)])
    outer = SequentialAgent(
        name="outer",
        sub_agents=[LlmAgent(name="hello", model=ScriptedModel(["hi"])), tagged],
    )
    runner = TestRunner(outer)
    events = await runner.run("go")
    assert [(e.author, e.text) for e in events if e.content] == [("hello", "hi")]
    assert outputs(events) == [("tag", "tagged")]
    assert tagged.parent_agent is outer


async def test_an_llm_node_with_include_contents_set_sees_the_conversation():
    model = ScriptedModel(["second answer"])
    chatty = LlmAgent(name="chatty", model=model, include_contents="default")

    def rephrase(node_input: str) -> str:
        return f"Rephrased: {node_input}"

    wf = Workflow(name="wf", edges=[(START, rephrase, chatty)])
    await TestRunner(wf).run("original question")
    assert _texts(model.requests[0]) == ["original question", "Rephrased: original question"]


async def test_streamed_llm_node_chunks_pass_through_and_the_whole_answer_is_the_output():
    model = ScriptedModel([Stream(["Hel", "lo"])])
    talker = LlmAgent(name="talker", model=model)

    def after(node_input: str) -> str:
        return f"[{node_input}]"

    runner = TestRunner(Workflow(name="wf", edges=[(START, talker, after)]))
    events = await runner.run("hi", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    assert [e.text for e in events if e.partial] == ["Hel", "lo"]
    assert outputs(events) == [("after", "[Hello]")]
    stored = (await runner.session()).events
    assert not any(e.partial for e in stored)


async def test_changes_to_an_agent_after_the_workflow_is_built_are_used():
    model = ScriptedModel(["a", "b"])
    agent = LlmAgent(name="agent", model=model, instruction="first instruction")
    runner = TestRunner(Workflow(name="wf", edges=[(START, agent)]))
    await runner.run("one")
    agent.instruction = "second instruction"
    await runner.run("two")
    instructions = [str(r.config.system_instruction) for r in model.requests if r.config]
    assert "first instruction" in instructions[0] and "second instruction" in instructions[1]
