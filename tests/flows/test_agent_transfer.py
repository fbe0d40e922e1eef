"""Agent transfer: the transfer tool and instruction, targets, and who answers next."""

from __future__ import annotations

from pyadk import types
from pyadk.agents import LlmAgent, LoopAgent, SequentialAgent
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import LongRunningFunctionTool

TRANSFER = "transfer_to_agent"


def _transfer(name: str) -> types.Part:
    return function_call(TRANSFER, {"agent_name": name})


def _llm(name: str, *replies, **kwargs) -> LlmAgent:
    return LlmAgent(name=name, model=ScriptedModel(list(replies)), **kwargs)


def _model(agent: LlmAgent) -> ScriptedModel:
    assert isinstance(agent.model, ScriptedModel)
    return agent.model


def _offers_transfer(request: LlmRequest) -> bool:
    return TRANSFER in request.declared_function_names()


def _listed_targets(request: LlmRequest) -> set[str]:
    """Agent names listed as ``- name: description`` in the system instruction."""
    lines = request.system_instruction_text().splitlines()
    return {line[2:].split(":")[0] for line in lines if line.startswith("- ")}


# -- what the model is offered --------------------------------------------------------------


async def test_no_transfer_tool_without_targets():
    agent = _llm("alone", "hi")
    await TestRunner(agent).run("hi")
    request = _model(agent).requests[0]
    assert not _offers_transfer(request)
    assert TRANSFER not in request.system_instruction_text()


async def test_sub_agent_that_may_not_transfer_anywhere_gets_no_tool():
    sub = _llm(
        "sub", "sub answer", disallow_transfer_to_parent=True, disallow_transfer_to_peers=True
    )
    root = _llm("root", _transfer("sub"), sub_agents=[sub, _llm("peer")])
    await TestRunner(root).run("hi")
    assert _offers_transfer(_model(root).requests[0])
    assert not _offers_transfer(_model(sub).requests[0])
    assert TRANSFER not in _model(sub).requests[0].system_instruction_text()


async def test_transfer_instruction_lists_targets_with_descriptions():
    root = _llm(
        "root",
        "root answers",
        sub_agents=[
            _llm("billing", description="Handles invoices."),
            _llm("support", description="Fixes problems."),
        ],
    )
    await TestRunner(root).run("hi")
    request = _model(root).requests[0]
    text = request.system_instruction_text()
    assert _listed_targets(request) == {"billing", "support"}
    assert "billing: Handles invoices." in text and "support: Fixes problems." in text
    assert _offers_transfer(request)


async def test_transfer_declaration_enumerates_valid_agent_names():
    root = _llm("root", "root answers", sub_agents=[_llm("billing"), _llm("support")])
    await TestRunner(root).run("hi")
    request = _model(root).requests[0]
    (declaration,) = [
        d
        for tool in request.config.tools or []
        for d in tool.function_declarations or []
        if d.name == "transfer_to_agent"
    ]
    assert declaration.parameters.properties["agent_name"].enum == ["billing", "support"]
    assert declaration.parameters.required == ["agent_name"]


async def test_sub_agent_targets_include_parent_and_peers_by_default():
    sub = _llm("sub", "sub answer")
    root = _llm("root", _transfer("sub"), sub_agents=[sub, _llm("peer")])
    await TestRunner(root).run("hi")
    request = _model(sub).requests[0]
    assert _listed_targets(request) == {"root", "peer"}
    assert "parent agent root" in request.system_instruction_text()


async def test_disallow_transfer_to_parent_restricts_targets():
    sub = _llm("sub", _transfer("root"), "I stay", disallow_transfer_to_parent=True)
    root = _llm("root", _transfer("sub"), sub_agents=[sub, _llm("peer")])
    events = await TestRunner(root).run("hi")

    request = _model(sub).requests[0]
    assert _listed_targets(request) == {"peer"}
    assert "parent agent" not in request.system_instruction_text()
    # Trying anyway gives the model an error, and no transfer happens.
    refused = events[3].get_function_responses()[0]
    assert refused.name == TRANSFER and "error" in refused.response
    assert events[3].actions.transfer_to_agent is None
    assert simplify_events(events)[-1] == ("sub", "I stay")
    assert _model(root).call_count == 1


async def test_disallow_transfer_to_peers_restricts_targets():
    sub = _llm("sub", "sub answer", disallow_transfer_to_peers=True)
    root = _llm("root", _transfer("sub"), sub_agents=[sub, _llm("peer")])
    await TestRunner(root).run("hi")
    assert _listed_targets(_model(sub).requests[0]) == {"root"}


async def test_transfer_to_unknown_name_is_an_error_result_for_the_model():
    root = _llm("root", _transfer("nobody"), "answering myself", sub_agents=[_llm("helper")])
    events = await TestRunner(root).run("hi")

    response = events[1].get_function_responses()[0].response
    assert "nobody" in response["error"] and "helper" in response["error"]
    assert events[1].actions.transfer_to_agent is None
    assert [e.author for e in events] == ["root", "root", "root"]
    second = _model(root).requests[1]
    assert second.contents[-1].parts[0].function_response.response == response


# -- running the target ---------------------------------------------------------------------


async def test_transfer_runs_target_in_same_turn():
    helper = _llm("helper", "helper answers")
    root = _llm("root", _transfer("helper"), sub_agents=[helper])
    runner = TestRunner(root)
    events = await runner.run("please help")

    assert simplify_events(events) == [
        ("root", "call:transfer_to_agent({'agent_name': 'helper'})"),
        ("root", "response:transfer_to_agent({'status': 'transferred to helper'})"),
        ("helper", "helper answers"),
    ]
    assert events[1].actions.transfer_to_agent == "helper"
    assert len({e.invocation_id for e in events}) == 1
    # The helper sees the user's message; the root's turn is context.
    contents = _model(helper).requests[0].contents
    assert contents[0].parts[0].text == "please help"
    assert _model(root).call_count == 1


async def test_transfer_back_to_parent():
    helper = _llm("helper", _transfer("root"))
    root = _llm("root", _transfer("helper"), "root again", sub_agents=[helper])
    events = await TestRunner(root).run("hi")
    assert [e.author for e in events] == ["root", "root", "helper", "helper", "root"]
    assert simplify_events(events)[-1] == ("root", "root again")


async def test_next_turn_goes_to_transferred_to_agent():
    helper = _llm("helper", "first help", "second help")
    root = _llm("root", _transfer("helper"), sub_agents=[helper])
    runner = TestRunner(root)
    await runner.run("hi")
    events = await runner.run("more please")
    assert simplify_events(events) == [("helper", "second help")]
    assert _model(root).call_count == 1


async def test_next_turn_goes_back_to_root_when_agent_cannot_return():
    helper = _llm("helper", "one-shot help", disallow_transfer_to_parent=True)
    root = _llm("root", _transfer("helper"), "root handles turn two", sub_agents=[helper])
    runner = TestRunner(root)
    await runner.run("hi")
    events = await runner.run("again")
    assert simplify_events(events) == [("root", "root handles turn two")]
    assert _model(helper).call_count == 1


async def test_transfer_to_sequential_agent_runs_its_pipeline():
    pipeline = SequentialAgent(
        name="pipeline",
        description="Does it in steps.",
        sub_agents=[_llm("step_one", "one"), _llm("step_two", "two")],
    )
    root = _llm("root", _transfer("pipeline"), "root for turn two", sub_agents=[pipeline])
    runner = TestRunner(root)
    events = await runner.run("go")

    assert "pipeline: Does it in steps." in _model(root).requests[0].system_instruction_text()
    assert simplify_events(events)[2:] == [("step_one", "one"), ("step_two", "two")]
    # A workflow agent's children cannot hand control back by transfer: root answers next.
    assert simplify_events(await runner.run("next")) == [("root", "root for turn two")]


async def test_transfer_to_loop_agent_runs_iterations():
    loop = LoopAgent(name="looper", max_iterations=2, sub_agents=[_llm("worker", "w1", "w2")])
    root = _llm("root", _transfer("looper"), sub_agents=[loop])
    events = await TestRunner(root).run("go")
    assert simplify_events(events)[2:] == [("worker", "w1"), ("worker", "w2")]


# -- long-running calls ---------------------------------------------------------------------


def ask_approval(amount: int) -> None:
    """Asks a human to approve a payment."""
    return None


async def test_long_running_response_resumes_the_sub_agent_that_called():
    payer = _llm(
        "payer",
        function_call("ask_approval", {"amount": 50}, id="lr-1"),
        "payment sent",
        tools=[LongRunningFunctionTool(ask_approval)],
        disallow_transfer_to_parent=True,
    )
    root = _llm("root", _transfer("payer"), "still waiting", sub_agents=[payer])
    runner = TestRunner(root)

    first = await runner.run("pay 50")
    assert first[-1].author == "payer" and first[-1].long_running_tool_ids == {"lr-1"}
    # An ordinary message goes to root (payer cannot transfer back)...
    assert simplify_events(await runner.run("status?")) == [("root", "still waiting")]

    # ...but the function response goes to the agent that made the call.
    approval = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id="lr-1", name="ask_approval", response={"approved": True}
                )
            )
        ],
    )
    events = await runner.run(approval)
    assert simplify_events(events) == [("payer", "payment sent")]
    last_content = _model(payer).requests[-1].contents[-1]
    assert last_content.parts[0].function_response.response == {"approved": True}
    assert _model(root).call_count == 2
