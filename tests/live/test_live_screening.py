"""Model callbacks screening transcriptions in live runs (google-adk's live callback
sites 2 and 3): the model's output transcription with ``after_model_callback``, the
user's finished input transcription with ``before_model_callback``."""

from __future__ import annotations

from typing import Any

import pytest
from live_support import make_harness, texts, user

from pyadk import types
from pyadk.agents import CallbackContext, LiveRequestQueue, LlmAgent
from pyadk.events.event import Event
from pyadk.flows import live_screening
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.testing import ScriptedLiveModel

PCM = "audio/pcm;rate=16000"


def said(text: str, *, finished: bool = False) -> LlmResponse:
    """The model's output transcription (a chunk, or the whole finished one)."""
    value = types.Transcription(text=text, finished=finished)
    return LlmResponse(output_transcription=value, partial=not finished)


def heard(text: str, *, finished: bool = False) -> LlmResponse:
    """The user's input transcription (a chunk, or the whole finished one)."""
    value = types.Transcription(text=text, finished=finished)
    return LlmResponse(input_transcription=value, partial=not finished)


def answer(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


DONE = LlmResponse(turn_complete=True)

LEAKY_TURN = [
    said("The code"),
    said(" is 1234"),
    said(", keep it."),
    said("The code is 1234, keep it.", finished=True),
    DONE,
]


def transcript(event: Event) -> tuple[str, bool, str | None] | None:
    value = event.input_transcription or event.output_transcription
    if value is None:
        return None
    return (event.author, bool(event.partial), value.text)


def guard_output(screened: list[tuple[str | None, bool | None]]) -> Any:
    def after(callback_context: CallbackContext, llm_response: LlmResponse) -> Any:
        value = llm_response.output_transcription
        assert value is not None
        screened.append((value.text, value.finished))
        if "1234" in (value.text or ""):
            return answer("I cannot share that.")
        return None

    return after


async def test_output_transcription_is_screened_as_it_grows_and_a_block_mutes_the_turn() -> None:
    screened: list[tuple[str | None, bool | None]] = []
    model = ScriptedLiveModel([LEAKY_TURN, "Anything else?"])
    agent = LlmAgent(
        name="assistant", model=model, after_model_callback=guard_output(screened), output_key="out"
    )
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("what is the code?"))
    queue.send_content(user("ok"))

    events = await live.run(queue, close_after_turns=2)

    # The accumulated text so far, unfinished, each chunk (as google-adk).
    assert screened == [("The code", False), ("The code is 1234", False)]
    assert [transcript(e) for e in events if transcript(e)] == [("assistant", True, "The code")]
    blocked = events[1]
    assert blocked.author == "assistant" and blocked.turn_complete
    assert blocked.text == "I cannot share that."
    # The rest of the blocked turn (its end included) is dropped; the next turn is not.
    assert texts(events) == ["I cannot share that.", "Anything else?"]
    assert [bool(e.turn_complete) for e in events] == [False, True, False, True]
    stored = await live.stored()
    assert [e.output_transcription for e in stored if e.output_transcription] == []
    assert [e.text for e in stored if e.author == "assistant" and e.content] == [
        "I cannot share that.",
        "Anything else?",
    ]
    assert (await live.state())["out"] == "Anything else?"
    assert blocked.actions.state_delta == {"out": "I cannot share that."}


async def test_output_transcription_passes_unchanged_when_the_callback_returns_none() -> None:
    screened: list[tuple[str | None, bool | None]] = []
    turn = [said("Hello"), said(" there."), said("Hello there.", finished=True), DONE]
    model = ScriptedLiveModel([turn])
    agent = LlmAgent(name="assistant", model=model, after_model_callback=guard_output(screened))
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, close_after_turns=1)

    # The finished transcription repeats the text screened last: not screened again.
    assert screened == [("Hello", False), ("Hello there.", False)]
    assert [transcript(e) for e in events] == [
        ("assistant", True, "Hello"),
        ("assistant", True, " there."),
        ("assistant", False, "Hello there."),
        None,
    ]
    assert events[-1].turn_complete
    stored = await live.stored()
    assert [e.output_transcription for e in stored if e.output_transcription] == [
        types.Transcription(text="Hello there.", finished=True)
    ]


async def test_a_finished_transcription_without_chunks_is_screened() -> None:
    screened: list[tuple[str | None, bool | None]] = []
    model = ScriptedLiveModel([[said("The code is 1234.", finished=True), DONE]])
    agent = LlmAgent(name="assistant", model=model, after_model_callback=guard_output(screened))
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("code?"))

    events = await live.run(queue, close_after_turns=1)

    assert screened == [("The code is 1234.", True)]
    assert [transcript(e) for e in events] == [None]
    assert texts(events) == ["I cannot share that."]


class _Screen(BasePlugin):
    def __init__(self, calls: list[str], *, block: bool) -> None:
        super().__init__(name="screen")
        self.calls = calls
        self.block = block

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        value = llm_response.output_transcription
        self.calls.append(f"plugin:{value.text if value else None}")
        return answer("Blocked by policy.") if self.block else None


@pytest.mark.parametrize("block", [True, False])
async def test_the_plugin_hook_screens_before_the_agent_callback(block: bool) -> None:
    calls: list[str] = []

    def after(callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        value = llm_response.output_transcription
        calls.append(f"agent:{value.text if value else None}")

    model = ScriptedLiveModel([[said("Hi."), said("Hi.", finished=True), DONE]])
    agent = LlmAgent(name="assistant", model=model, after_model_callback=after)
    live = await make_harness(agent, plugins=[_Screen(calls, block=block)])
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, close_after_turns=1)

    if block:
        assert calls == ["plugin:Hi."]
        assert texts(events) == ["Blocked by policy."]
        assert [transcript(e) for e in events] == [None]
    else:
        assert calls == ["plugin:Hi.", "agent:Hi."]
        assert [transcript(e) for e in events][:2] == [
            ("assistant", True, "Hi."),
            ("assistant", False, "Hi."),
        ]


def transfer_money(amount: int) -> str:
    """Transfers money."""
    raise AssertionError("a tool call of a blocked turn must not run")


async def test_spoken_input_is_screened_once_transcribed_and_a_block_mutes_the_answer() -> None:
    screened: list[list[str]] = []

    def screen(callback_context: CallbackContext, llm_request: LlmRequest) -> Any:
        said_text = [p.text or "" for c in llm_request.contents for p in c.parts or []]
        screened.append([c.role or "" for c in llm_request.contents] + said_text)
        if "password" in said_text[0]:
            return answer("Please never say your password.")
        return None

    call = types.Part(
        function_call=types.FunctionCall(id="c1", name="transfer_money", args={"amount": 5})
    )
    spoken_turn = [
        heard("my password"),
        heard("my password is 1234", finished=True),
        said("Your pass"),
        LlmResponse(content=types.Content(role="model", parts=[call])),
        heard("wait", finished=True),  # the user's speech is not muted
        DONE,
    ]
    model = ScriptedLiveModel([spoken_turn, "Understood."], reply_to_realtime=True)
    agent = LlmAgent(
        name="assistant", model=model, before_model_callback=screen, tools=[transfer_money]
    )
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_realtime(types.Blob(mime_type=PCM, data=b"speech"))

    events = await live.run(queue, close_after_turns=2)

    assert screened == [["user", "my password is 1234"], ["user", "wait"]]
    assert [transcript(e) for e in events[:2]] == [
        ("user", True, "my password"),
        ("user", False, "my password is 1234"),
    ]
    blocked = events[2]
    assert blocked.author == "assistant" and blocked.turn_complete
    assert blocked.text == "Please never say your password."
    # The rest of the muted turn: only the user's speech (its turn_complete dropped).
    assert [transcript(e) for e in events[3:]] == [("user", False, "wait"), None, None]
    assert [bool(e.turn_complete) for e in events[3:]] == [False, False, True]
    assert texts(events) == ["Please never say your password.", "Understood."]
    assert not any(e.get_function_calls() or e.get_function_responses() for e in events)
    # The dropped call is refused to the model (not run); the model answers that.
    refusal = model.connections[0].sent[-1]
    assert isinstance(refusal, types.Content)
    response = refusal.parts[0].function_response
    assert response is not None and response.id == "c1" and response.name == "transfer_money"
    assert response.response == {"error": live_screening.BLOCKED_CALL_ERROR}
    stored = await live.stored()
    assert [(e.author, e.input_transcription.text) for e in stored if e.input_transcription] == [
        ("user", "my password is 1234"),
        ("user", "wait"),
    ]
    assert [e.text for e in stored if e.content] == [
        "Please never say your password.",
        "Understood.",
    ]


async def test_without_listeners_no_screening_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("no screening without a listener")

    monkeypatch.setattr(live_screening.LiveScreening, "__init__", refuse)
    turn = [heard("hi", finished=True), said("Hello."), said("Hello.", finished=True), DONE]
    model = ScriptedLiveModel([turn], reply_to_realtime=True)
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_realtime(types.Blob(mime_type=PCM, data=b"speech"))

    events = await live.run(queue, close_after_turns=1)

    assert [transcript(e) for e in events] == [
        ("user", False, "hi"),
        ("assistant", True, "Hello."),
        ("assistant", False, "Hello."),
        None,
    ]


async def test_an_interruption_ends_the_muted_turn_and_is_passed_on() -> None:
    screened: list[tuple[str | None, bool | None]] = []
    turn = [said("The code is 1234"), said(" and"), LlmResponse(interrupted=True), said("Yes?")]
    model = ScriptedLiveModel([[*turn, said("Yes?", finished=True), DONE]])
    agent = LlmAgent(name="assistant", model=model, after_model_callback=guard_output(screened))
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("code?"))

    events = await live.run(queue, close_after_turns=2)

    assert texts(events) == ["I cannot share that."]
    assert [bool(e.interrupted) for e in events] == [False, True, False, False, False]
    assert [transcript(e) for e in events[2:]] == [
        ("assistant", True, "Yes?"),
        ("assistant", False, "Yes?"),
        None,
    ]
    assert screened == [("The code is 1234", False), ("Yes?", False)]
