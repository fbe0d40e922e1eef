"""The conversation history a model receives (``llm_request.contents``)."""

from __future__ import annotations

import asyncio

from pyadk import types
from pyadk.agents import LlmAgent, ParallelAgent, SequentialAgent
from pyadk.events.event import Event
from pyadk.flows.processors import contents as contents_module
from pyadk.flows.processors.contents import belongs_to_branch, build_contents
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import LongRunningFunctionTool

TIMEOUT = 5


def _summary(contents: list[types.Content]) -> list[tuple[str | None, object]]:
    """(role, text | call name | response) per content, for compact assertions."""
    out: list[tuple[str | None, object]] = []
    for content in contents:
        items: list[object] = []
        for part in content.parts or []:
            if part.function_call:
                items.append(f"call:{part.function_call.name}")
            elif part.function_response:
                items.append(f"response:{part.function_response.response}")
            else:
                items.append(part.text)
        out.append((content.role, items[0] if len(items) == 1 else items))
    return out


async def test_multi_turn_chat_history():
    model = ScriptedModel(["Hello!", "You said your name is Ada.", "Bye."])
    runner = TestRunner(LlmAgent(name="bot", model=model))
    await runner.run("Hi, I am Ada.")
    await runner.run("What is my name?")
    await runner.run("Goodbye")

    assert _summary(model.requests[0].contents) == [("user", "Hi, I am Ada.")]
    assert _summary(model.requests[2].contents) == [
        ("user", "Hi, I am Ada."),
        ("model", "Hello!"),
        ("user", "What is my name?"),
        ("model", "You said your name is Ada."),
        ("user", "Goodbye"),
    ]


async def test_tool_call_and_response_in_history():
    def add(a: int, b: int) -> int:
        """Adds two numbers."""
        return a + b

    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "It is 3."])
    await TestRunner(LlmAgent(name="calc", model=model, tools=[add])).run("1+2?")
    assert _summary(model.requests[1].contents) == [
        ("user", "1+2?"),
        ("model", "call:add"),
        ("user", "response:{'result': 3}"),
    ]


async def test_other_agents_turns_become_user_context():
    def lookup(topic: str) -> str:
        """Looks a topic up."""
        return "facts"

    writer_model = ScriptedModel(["Essay."])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(
                name="researcher",
                model=ScriptedModel([function_call("lookup", {"topic": "owls"}), "Owls hoot."]),
                tools=[lookup],
            ),
            LlmAgent(name="writer", model=writer_model),
        ],
    )
    await TestRunner(pipeline).run("Write about owls")

    contents = writer_model.requests[0].contents
    assert contents[0].role == "user" and contents[0].parts[0].text == "Write about owls"
    context = contents[1:]
    assert all(c.role == "user" for c in context)
    assert all(c.parts[0].text == "For context:" for c in context)
    texts = [c.parts[1].text for c in context]
    assert texts[0].startswith("[researcher] called tool `lookup`") and "owls" in texts[0]
    assert texts[1].startswith("[researcher] tool `lookup` returned") and "facts" in texts[1]
    assert texts[2] == "[researcher] said: Owls hoot."


async def test_own_earlier_turns_stay_model_role():
    bot_model = ScriptedModel(["first", "second"])
    bot = LlmAgent(name="bot", model=bot_model)
    runner = TestRunner(bot)
    await runner.run("one")
    await runner.run("two")
    roles = [c.role for c in bot_model.requests[1].contents]
    assert roles == ["user", "model", "user"]


# -- branches -------------------------------------------------------------------------------


def test_branch_matching_uses_whole_segments():
    assert belongs_to_branch("p.a", "p.a")
    assert belongs_to_branch("p.a", "p")
    assert belongs_to_branch("p.a", None)
    assert belongs_to_branch(None, "p.a")
    assert not belongs_to_branch("p.a", "p.a1")
    assert not belongs_to_branch("p.a1", "p.a")
    assert not belongs_to_branch("p", "p.a")


def _event(author: str, text: str, branch: str | None = None, role: str = "model") -> Event:
    return Event(
        author=author,
        branch=branch,
        content=types.Content(role=role, parts=[types.Part(text=text)]),
    )


def test_build_contents_hides_sibling_branch_with_common_prefix():
    events = [
        _event("user", "question", role="user"),
        _event("a", "a says", branch="p.a"),
        _event("a1", "a1 says", branch="p.a1"),
        _event("a", "a again", branch="p.a"),
    ]
    contents = build_contents(events, agent_name="a", branch="p.a")
    assert _summary(contents) == [("user", "question"), ("model", "a says"), ("model", "a again")]


async def test_parallel_branch_does_not_see_branch_with_prefix_name():
    a1_done = asyncio.Event()

    async def wait_for_a1() -> str:
        """Waits for a1."""
        await asyncio.wait_for(a1_done.wait(), TIMEOUT)
        return "ready"

    a_model = ScriptedModel([function_call("wait_for_a1"), "a final"])
    parallel = ParallelAgent(
        name="p",
        sub_agents=[
            LlmAgent(name="a", model=a_model, tools=[wait_for_a1]),
            LlmAgent(
                name="a1",
                model=ScriptedModel(["a1 private"]),
                after_agent_callback=lambda callback_context: a1_done.set(),
            ),
        ],
    )
    runner = TestRunner(parallel)
    await runner.run("go")

    assert any(e.branch == "p.a1" for e in (await runner.session()).events)
    assert _summary(a_model.requests[1].contents) == [
        ("user", "go"),
        ("model", "call:wait_for_a1"),
        ("user", "response:{'result': 'ready'}"),
    ]


# -- long-running function responses --------------------------------------------------------


def request_review(doc: str) -> None:
    """Asks a human to review a document."""
    return None


def _review_response(verdict: str) -> types.Content:
    return types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id="call-1", name="request_review", response={"verdict": verdict}
                )
            )
        ],
    )


async def test_late_function_response_is_placed_right_after_its_call():
    model = ScriptedModel(
        [
            function_call("request_review", {"doc": "d1"}, id="call-1"),
            "Still waiting for the review.",
            "Review approved.",
            "You're welcome.",
        ]
    )
    agent = LlmAgent(name="editor", model=model, tools=[LongRunningFunctionTool(request_review)])
    runner = TestRunner(agent)
    await runner.run("review d1")
    await runner.run("any news?")
    await runner.run(_review_response("approved"))

    # When the response arrives, the model sees it right after the call; what came
    # in between is left out of this request.
    assert _summary(model.requests[2].contents) == [
        ("user", "review d1"),
        ("model", "call:request_review"),
        ("user", "response:{'verdict': 'approved'}"),
    ]

    await runner.run("thanks")
    assert _summary(model.requests[3].contents) == [
        ("user", "review d1"),
        ("model", "call:request_review"),
        ("user", "response:{'verdict': 'approved'}"),
        ("user", "any news?"),
        ("model", "Still waiting for the review."),
        ("model", "Review approved."),
        ("user", "thanks"),
    ]


async def test_cached_history_matches_a_fresh_build_across_turns(monkeypatch):
    monkeypatch.setattr(contents_module, "MIN_CACHED_CONTENTS", 0)  # cache from the start

    def start_job() -> None:
        """Starts a job; the result comes later."""

    replies = [
        "first",
        function_call("start_job"),
        "second",
        "third",
    ]
    model = ScriptedModel(replies)
    agent = LlmAgent(name="agent", model=model, tools=[LongRunningFunctionTool(start_job)])
    runner = TestRunner(agent)
    await runner.run("one")
    await runner.run("two")  # the long-running call pauses the agent
    call = next(
        e for e in (await runner.session()).events if e.get_function_calls()
    ).get_function_calls()[0]
    response = types.Part(
        function_response=types.FunctionResponse(id=call.id, name="start_job", response={"ok": 1})
    )
    await runner.run(types.Content(role="user", parts=[response]))
    await runner.run("four")

    events = (await runner.session()).events
    fresh = build_contents(events[:-1], agent_name="agent", branch=None)
    sent = model.requests[-1].contents
    assert [c.model_dump() for c in sent] == [c.model_dump() for c in fresh]
    assert [c.role for c in sent][-1] == "user" and sent[-1].parts[0].text == "four"


def _chat(turns: int) -> list[Event]:
    events = []
    for i in range(turns):
        events.append(Event(author="user", content=types.UserContent(f"q{i}")))
        events.append(Event(author="bot", content=types.ModelContent(f"a{i}")))
    return events


def test_only_histories_of_some_length_are_cached():
    cache = contents_module._history_cache
    cache.clear()
    short, long = _chat(2), _chat(contents_module.MIN_CACHED_CONTENTS)

    build_contents(short, agent_name="bot", branch=None, cache_key="short")
    built = build_contents(long, agent_name="bot", branch=None, cache_key="long")

    assert cache.get("short") is None
    cached = cache.get("long")
    assert cached is not None and cached.count == len(long)
    extended = build_contents([*long, *_chat(1)], agent_name="bot", branch=None, cache_key="long")
    assert [c.model_dump() for c in extended[: len(built)]] == [c.model_dump() for c in built]
    assert len(extended) == len(built) + 2 and cache.get("long").count == len(long) + 2


def test_late_result_in_a_later_part_is_still_moved_after_its_call():
    """An event of several parts is checked for tool results whatever its first part."""
    call = types.FunctionCall(id="c1", name="lookup", args={})
    result = types.FunctionResponse(id="c1", name="lookup", response={"value": 1})
    events = [
        _event("user", "question", role="user"),
        Event(
            author="a", content=types.Content(role="model", parts=[types.Part(function_call=call)])
        ),
        _event("a", "waiting"),
        Event(
            author="a",
            content=types.Content(
                role="user",
                parts=[types.Part(text="note"), types.Part(function_response=result)],
            ),
        ),
        _event("a", "done"),
    ]
    contents = build_contents(events, agent_name="a", branch=None)
    assert _summary(contents) == [
        ("user", "question"),
        ("model", "call:lookup"),
        ("user", ["note", "response:{'value': 1}"]),
        ("model", "waiting"),
        ("model", "done"),
    ]
