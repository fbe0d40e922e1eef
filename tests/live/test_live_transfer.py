"""Agent transfer and workflow agents in live runs."""

from __future__ import annotations

import pytest
from live_support import make_harness, texts, user

from pyadk.agents import LiveRequestQueue, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from pyadk.testing import ScriptedLiveModel, function_call


async def test_transfer_closes_the_connection_and_the_target_answers_live() -> None:
    root_model = ScriptedLiveModel([function_call("transfer_to_agent", {"agent_name": "billing"})])
    billing_model = ScriptedLiveModel(["Billing here.", "Refund done."])
    billing = LlmAgent(name="billing", model=billing_model, description="Refunds.")
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])
    live = await make_harness(root)
    queue = LiveRequestQueue()
    queue.send_content(user("I need a refund"))

    async def answer(event) -> None:
        if event.turn_complete and billing_model.reply_count == 1:
            queue.send_content(user("order 42"))

    events = await live.run(queue, on_event=answer, close_after_turns=2)

    transfer = [e for e in events if e.actions.transfer_to_agent]
    assert [(e.author, e.actions.transfer_to_agent) for e in transfer] == [("root", "billing")]
    assert texts(events) == ["Billing here.", "Refund done."]
    assert {e.author for e in events if e.content and e.content.parts[0].text} == {"billing"}
    # The root's connection closed at the transfer, without its tool result being sent.
    (root_connection,) = root_model.connections
    assert root_connection.closed
    assert [c.parts[0].text for c in root_connection.sent] == ["I need a refund"]
    # The target got the conversation so far, then the user's next message.
    (billing_connection,) = billing_model.connections
    history = billing_connection.history or []
    assert history[0].parts is not None and history[0].parts[0].text == "I need a refund"
    assert [c.parts[0].text for c in billing_connection.sent] == ["order 42"]


async def test_the_next_live_run_starts_with_the_agent_transferred_to() -> None:
    root_model = ScriptedLiveModel([function_call("transfer_to_agent", {"agent_name": "billing"})])
    billing_model = ScriptedLiveModel(["Billing here.", "Still billing."])
    billing = LlmAgent(name="billing", model=billing_model)
    live = await make_harness(LlmAgent(name="root", model=root_model, sub_agents=[billing]))
    first = LiveRequestQueue()
    first.send_content(user("refund please"))
    await live.run(first, close_after_turns=1)

    second = LiveRequestQueue()
    second.send_content(user("hello again"))
    events = await live.run(second, close_after_turns=1)

    assert texts(events) == ["Still billing."]
    assert len(root_model.connections) == 1


async def test_a_transfer_to_an_unknown_agent_is_answered_with_an_error() -> None:
    model = ScriptedLiveModel(
        [function_call("transfer_to_agent", {"agent_name": "nobody"}), "Let me help myself."]
    )
    helper = LlmAgent(name="helper", model=ScriptedLiveModel())
    live = await make_harness(LlmAgent(name="root", model=model, sub_agents=[helper]))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, close_after_turns=2)

    (result,) = [e for e in events if e.get_function_responses()]
    response = result.get_function_responses()[0].response or {}
    assert "Cannot transfer to 'nobody'" in response["error"]
    assert texts(events) == ["Let me help myself."]
    assert helper.model.connections == []  # type: ignore[union-attr]


async def test_a_live_sequence_hands_over_when_a_step_calls_task_completed() -> None:
    greeter_model = ScriptedLiveModel(["Hi! What is your name?", function_call("task_completed")])
    closer_model = ScriptedLiveModel(["Nice to meet you, Ada."])
    greeter = LlmAgent(name="greeter", model=greeter_model, instruction="Greet.")
    closer = LlmAgent(name="closer", model=closer_model)
    live = await make_harness(SequentialAgent(name="flow", sub_agents=[greeter, closer]))
    queue = LiveRequestQueue()
    queue.send_content(user("hello"))

    async def answer(event) -> None:
        if event.turn_complete and event.author == "greeter":
            queue.send_content(user("Ada"))

    # A turn of each: the greeter's run ends at its call, before its second turn ends.
    events = await live.run(queue, on_event=answer, close_after_turns=2)

    assert texts(events) == ["Hi! What is your name?", "Nice to meet you, Ada."]
    done = [e for e in events if e.get_function_responses()]
    assert [r.name for r in done[0].get_function_responses()] == ["task_completed"]
    # Each step had its own connection; the closer saw the conversation so far.
    assert len(greeter_model.connections) == 1 and greeter_model.connections[0].closed
    (closer_connection,) = closer_model.connections
    assert closer_connection.history is not None
    # The step was offered task_completed for this run only: the agent is unchanged.
    request = greeter_model.requests[0]
    assert "task_completed" in request.tools_dict
    assert "task_completed" in str(request.config.system_instruction)
    assert greeter.tools == [] and greeter.instruction == "Greet."
    assert "task_completed" in closer_model.requests[0].tools_dict


async def test_a_live_sequence_stops_when_the_client_closes() -> None:
    first_model = ScriptedLiveModel(["First step."])
    second_model = ScriptedLiveModel(["Second step."])
    sequence = SequentialAgent(
        name="flow",
        sub_agents=[
            LlmAgent(name="first", model=first_model),
            LlmAgent(name="second", model=second_model),
        ],
    )
    live = await make_harness(sequence)
    queue = LiveRequestQueue()
    queue.send_content(user("go"))

    events = await live.run(queue, close_after_turns=1)

    assert texts(events) == ["First step."]
    assert second_model.connections == []  # never started


@pytest.mark.parametrize("workflow", [LoopAgent, ParallelAgent])
async def test_loop_and_parallel_agents_refuse_live_mode_clearly(workflow) -> None:
    step = LlmAgent(name="step", model=ScriptedLiveModel())
    live = await make_harness(workflow(name="work", sub_agents=[step]))
    queue = LiveRequestQueue()
    queue.close()

    with pytest.raises(NotImplementedError) as raised:
        await live.run(queue)

    message = str(raised.value)
    assert f"{workflow.__name__} 'work' cannot run live" in message
    assert "LlmAgents and SequentialAgents only" in message
