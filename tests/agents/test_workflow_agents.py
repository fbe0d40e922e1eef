"""SequentialAgent, LoopAgent and ParallelAgent."""

from __future__ import annotations

import asyncio

import pytest
from agent_support import llm

from pyadk import types
from pyadk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import exit_loop

TIMEOUT = 5


def _texts(request: LlmRequest) -> list[str]:
    """Every text part the model received, in order."""
    return [p.text for c in request.contents for p in c.parts or [] if p.text]


# -- SequentialAgent ------------------------------------------------------------------------


async def test_sequential_runs_sub_agents_in_order_and_later_ones_see_earlier_output():
    second_model = ScriptedModel(["B"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            llm("first", "A"),
            LlmAgent(name="second", model=second_model),
            llm("third", "C"),
        ],
    )
    events = await TestRunner(pipeline).run("go")
    assert simplify_events(events) == [("first", "A"), ("second", "B"), ("third", "C")]
    assert any("[first] said: A" in t for t in _texts(second_model.requests[0]))


# -- LoopAgent ------------------------------------------------------------------------------


async def test_loop_stops_after_max_iterations():
    loop = LoopAgent(
        name="loop",
        max_iterations=3,
        sub_agents=[llm("a", "a1", "a2", "a3"), llm("b", "b1", "b2", "b3")],
    )
    events = await TestRunner(loop).run("go")
    assert simplify_events(events) == [
        ("a", "a1"),
        ("b", "b1"),
        ("a", "a2"),
        ("b", "b2"),
        ("a", "a3"),
        ("b", "b3"),
    ]


async def test_exit_loop_tool_ends_loop_immediately():
    worker_model = ScriptedModel(["draft 1", "draft 2"])
    critic_model = ScriptedModel(["needs work", function_call("exit_loop")])
    loop = LoopAgent(
        name="refine",
        max_iterations=10,
        sub_agents=[
            LlmAgent(name="worker", model=worker_model),
            LlmAgent(name="critic", model=critic_model, tools=[exit_loop]),
        ],
    )
    tail = llm("tail", "finished")
    runner = TestRunner(SequentialAgent(name="root", sub_agents=[loop, tail]))
    events = await runner.run("go")

    assert simplify_events(events) == [
        ("worker", "draft 1"),
        ("critic", "needs work"),
        ("worker", "draft 2"),
        ("critic", "call:exit_loop({})"),
        ("critic", "response:exit_loop({'status': 'loop exited'})"),
        ("tail", "finished"),
    ]
    assert events[4].actions.escalate is True
    # exit_loop skips summarization: the critic's model is not called again.
    assert critic_model.call_count == 2


async def test_escalation_ends_only_the_nearest_loop():
    inner_model = ScriptedModel(
        ["inner 1", function_call("exit_loop"), "inner 2", function_call("exit_loop")]
    )
    inner = LoopAgent(
        name="inner",
        sub_agents=[LlmAgent(name="inner_worker", model=inner_model, tools=[exit_loop])],
    )
    outer = LoopAgent(
        name="outer",
        max_iterations=2,
        sub_agents=[inner, llm("outer_worker", "outer 1", "outer 2")],
    )
    events = await TestRunner(outer).run("go")
    simple = [s for s in simplify_events(events) if not s[1].startswith("response:")]
    assert simple == [
        ("inner_worker", "inner 1"),
        ("inner_worker", "call:exit_loop({})"),
        ("outer_worker", "outer 1"),
        ("inner_worker", "inner 2"),
        ("inner_worker", "call:exit_loop({})"),
        ("outer_worker", "outer 2"),
    ]


# -- ParallelAgent --------------------------------------------------------------------------


def _recording_agent(name: str, text: str) -> LlmAgent:
    return LlmAgent(name=name, model=FunctionModel(lambda req: text))


async def test_parallel_branch_names():
    parallel = ParallelAgent(
        name="parallel", sub_agents=[_recording_agent("a", "A"), _recording_agent("b", "B")]
    )
    events = await TestRunner(parallel).run("go")
    assert {e.author: e.branch for e in events} == {"a": "parallel.a", "b": "parallel.b"}


async def test_nested_parallel_branch_names():
    # A ParallelAgent's children run in branch "<ctx.branch>.<parallel>.<child>".
    inner = ParallelAgent(name="parallel", sub_agents=[_recording_agent("child", "C")])
    seq = SequentialAgent(name="seq", sub_agents=[inner])
    outer = ParallelAgent(name="outer", sub_agents=[seq, _recording_agent("side", "S")])
    events = await TestRunner(outer).run("go")
    assert {e.author: e.branch for e in events} == {
        "child": "outer.seq.parallel.child",
        "side": "outer.side",
    }


async def test_directly_nested_parallel_repeats_inner_name_like_adk():
    # Same formula as google-adk: the inner ParallelAgent already runs in branch
    # "outer.parallel", so its child gets "outer.parallel.parallel.child".
    inner = ParallelAgent(name="parallel", sub_agents=[_recording_agent("child", "C")])
    outer = ParallelAgent(name="outer", sub_agents=[inner])
    events = await TestRunner(outer).run("go")
    assert [e.branch for e in events] == ["outer.parallel.parallel.child"]


async def test_parallel_sub_agents_run_concurrently():
    a_started, b_started = asyncio.Event(), asyncio.Event()

    async def model_a(request):
        a_started.set()
        await asyncio.wait_for(b_started.wait(), TIMEOUT)
        return "A done"

    async def model_b(request):
        b_started.set()
        await asyncio.wait_for(a_started.wait(), TIMEOUT)
        return "B done"

    parallel = ParallelAgent(
        name="p",
        sub_agents=[
            LlmAgent(name="a", model=FunctionModel(model_a)),
            LlmAgent(name="b", model=FunctionModel(model_b)),
        ],
    )
    events = await TestRunner(parallel).run("go")
    assert sorted(simplify_events(events)) == [("a", "A done"), ("b", "B done")]


async def test_parallel_branch_sees_only_its_history_and_shared_ancestors():
    b_done = asyncio.Event()

    async def wait_for_b() -> str:
        """Waits until agent b has answered."""
        await asyncio.wait_for(b_done.wait(), TIMEOUT)
        return "b is done"

    a_model = ScriptedModel([function_call("wait_for_b"), "A final"])
    a = LlmAgent(name="a", model=a_model, tools=[wait_for_b])
    b = LlmAgent(
        name="b",
        model=ScriptedModel(["B secret"]),
        after_agent_callback=lambda callback_context: b_done.set(),
    )
    pipeline = SequentialAgent(
        name="root",
        sub_agents=[llm("intro", "shared intro"), ParallelAgent(name="p", sub_agents=[a, b])],
    )
    runner = TestRunner(pipeline)
    await runner.run("start")

    # b's events were stored before a's second model call...
    session = await runner.session()
    authors = [e.author for e in session.events]
    b_index = authors.index("b")
    a_last = max(i for i, e in enumerate(session.events) if e.author == "a")
    assert b_index < a_last
    # ...but a never sees them; it sees the user, the shared intro and its own branch.
    second = _texts(a_model.requests[1])
    assert second[0] == "start"
    assert any("[intro] said: shared intro" in t for t in second)
    assert not any("B secret" in t for t in second)
    assert [c.role for c in a_model.requests[1].contents] == ["user", "user", "model", "user"]
    assert a_model.requests[1].contents[-1].parts[0].function_response.response == {
        "result": "b is done"
    }


async def test_parallel_state_deltas_of_all_branches_land_in_session():
    parallel = ParallelAgent(
        name="p",
        sub_agents=[
            llm("a", "alpha", output_key="a_out"),
            llm("b", "beta", output_key="b_out"),
            llm("c", "gamma", output_key="c_out"),
        ],
    )
    runner = TestRunner(parallel)
    await runner.run("go")
    state = await runner.state()
    assert {k: state[k] for k in ("a_out", "b_out", "c_out")} == {
        "a_out": "alpha",
        "b_out": "beta",
        "c_out": "gamma",
    }


async def test_parallel_branch_exception_propagates_and_cancels_siblings():
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow(request):
        started.set()
        try:
            await asyncio.sleep(TIMEOUT * 10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async def broken(request):
        await asyncio.wait_for(started.wait(), TIMEOUT)
        raise RuntimeError("model exploded")

    parallel = ParallelAgent(
        name="p",
        sub_agents=[
            LlmAgent(name="slow", model=FunctionModel(slow)),
            LlmAgent(name="broken", model=FunctionModel(broken)),
        ],
    )
    with pytest.raises(RuntimeError, match="model exploded"):
        await TestRunner(parallel).run("go")
    assert cancelled.is_set()


async def test_parallel_inside_sequential_then_merge_sees_all_branches():
    merge_model = ScriptedModel(["merged"])
    pipeline = SequentialAgent(
        name="root",
        sub_agents=[
            ParallelAgent(name="p", sub_agents=[llm("a", "from a"), llm("b", "from b")]),
            LlmAgent(name="merge", model=merge_model),
        ],
    )
    events = await TestRunner(pipeline).run("go")
    assert events[-1].author == "merge" and events[-1].branch is None
    texts = " ".join(_texts(merge_model.requests[0]))
    assert "[a] said: from a" in texts and "[b] said: from b" in texts


async def test_user_content_is_shared_with_parallel_branches():
    seen: list[str] = []

    def model(request):
        seen.append(request.contents[0].parts[0].text)
        return "ok"

    parallel = ParallelAgent(
        name="p",
        sub_agents=[
            LlmAgent(name="a", model=FunctionModel(model)),
            LlmAgent(name="b", model=FunctionModel(model)),
        ],
    )
    await TestRunner(parallel).run(types.UserContent("question"))
    assert seen == ["question", "question"]
