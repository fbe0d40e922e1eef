"""AgentTool: another agent called like a function."""

from pydantic import BaseModel

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call
from pyadk.tools import AgentTool


class Question(BaseModel):
    topic: str
    level: int = 1


class Answer(BaseModel):
    text: str
    confidence: float


def _declaration(tool: AgentTool) -> types.FunctionDeclaration:
    declaration = tool._get_declaration()
    assert declaration is not None
    return declaration


def test_declaration_takes_a_request_or_the_input_schema():
    plain = AgentTool(LlmAgent(name="helper", description="Helps.", model=ScriptedModel([])))
    declaration = _declaration(plain)
    assert declaration.name == "helper" and declaration.description == "Helps."
    assert declaration.parameters.required == ["request"]

    typed = AgentTool(LlmAgent(name="quiz", model=ScriptedModel([]), input_schema=Question))
    params = _declaration(typed).parameters
    assert set(params.properties) == {"topic", "level"}
    assert params.required == ["topic"]


async def test_runs_the_agent_forwards_state_and_returns_its_text():
    def child_reply(request):
        return f"child saw: {request.contents[-1].text}"

    def remember(callback_context):
        callback_context.state["child_ran"] = True
        assert callback_context.state["shared"] == "from parent"

    child = LlmAgent(name="child", model=FunctionModel(child_reply), before_agent_callback=remember)
    parent_model = ScriptedModel([function_call("child", {"request": "hello"}), "done"])
    parent = LlmAgent(name="parent", model=parent_model, tools=[AgentTool(child)])
    runner = TestRunner(parent, state={"shared": "from parent", "temp:secret": "x"})
    events = await runner.run("go")

    response = events[1].get_function_responses()[0].response
    assert response == {"result": "child saw: hello"}
    assert (await runner.state())["child_ran"] is True
    assert events[1].actions.state_delta["child_ran"] is True


async def test_input_and_output_schemas():
    child_model = ScriptedModel(['{"text": "Paris", "confidence": 0.9}'])
    child = LlmAgent(
        name="expert",
        model=child_model,
        input_schema=Question,
        output_schema=Answer,
    )
    parent_model = ScriptedModel([function_call("expert", {"topic": "France"}), "ok"])
    runner = TestRunner(LlmAgent(name="parent", model=parent_model, tools=[AgentTool(child)]))
    events = await runner.run("go")

    assert events[1].get_function_responses()[0].response == {"text": "Paris", "confidence": 0.9}
    assert child_model.requests[0].contents[-1].text == '{"topic":"France","level":1}'


async def test_bad_arguments_and_bad_output_are_error_results():
    child = LlmAgent(
        name="expert",
        model=ScriptedModel(["not json"]),
        input_schema=Question,
        output_schema=Answer,
    )
    calls = [
        function_call("expert", {"level": 2}),
        function_call("expert", {"topic": "x"}),
        "done",
    ]
    runner = TestRunner(LlmAgent(name="p", model=ScriptedModel(calls), tools=[AgentTool(child)]))
    events = await runner.run("go")
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert "Invalid arguments for agent 'expert'" in responses[0]["error"]
    assert "invalid structured output" in responses[1]["error"]

    plain = LlmAgent(name="plain", model=ScriptedModel([]))
    calls = [function_call("plain", {"request": ""}), "done"]
    runner = TestRunner(LlmAgent(name="p2", model=ScriptedModel(calls), tools=[AgentTool(plain)]))
    events = await runner.run("go")
    assert "non-empty 'request'" in events[1].get_function_responses()[0].response["error"]


async def test_skip_summarization_and_artifacts_land_in_the_callers_session():
    async def save(callback_context):
        await callback_context.save_artifact("report.txt", types.Part(text="42"))
        return types.ModelContent("saved")

    child = LlmAgent(name="writer", model=ScriptedModel([]), before_agent_callback=save)
    parent_model = ScriptedModel([function_call("writer", {"request": "write"})])
    parent = LlmAgent(
        name="parent", model=parent_model, tools=[AgentTool(child, skip_summarization=True)]
    )
    runner = TestRunner(parent)
    events = await runner.run("go")

    assert parent_model.call_count == 1  # the tool result is the final answer
    assert events[-1].actions.skip_summarization
    assert events[-1].get_function_responses()[0].response == {"result": "saved"}
    stored = await runner.artifact_service.load_artifact(
        app_name=runner.app_name,
        user_id=runner.user_id,
        session_id=runner.session_id,
        filename="report.txt",
    )
    assert stored == types.Part(text="42")
    assert events[-1].actions.artifact_delta == {"report.txt": 0}


async def test_an_agent_that_waits_for_the_client_is_an_error_result() -> None:
    from pyadk.tools import FunctionTool

    def pay(amount: int) -> dict:
        """Pays."""
        return {"paid": amount}

    inner = LlmAgent(
        name="payer",
        description="Pays.",
        model=ScriptedModel([function_call("pay", {"amount": 5}), "paid"]),
        tools=[FunctionTool(pay, require_confirmation=True)],
    )
    outer_model = ScriptedModel([function_call("payer", {"request": "pay 5"}), "done"])
    outer = LlmAgent(name="boss", model=outer_model, tools=[AgentTool(inner)])
    events = await TestRunner(outer).run("go")
    [result] = [r for e in events for r in e.get_function_responses()]
    assert "stopped waiting for the client's answer" in result.response["error"]
    assert "make the agent a sub-agent" in result.response["error"]


async def test_the_result_joins_the_parts_and_a_failed_agent_gives_its_error() -> None:
    from pyadk.agents import SequentialAgent
    from pyadk.models import LlmResponse

    parts = [
        types.Part(text="hidden", thought=True),
        types.Part(executable_code=types.ExecutableCode(code="print(2)", language="PYTHON")),
        types.Part(
            code_execution_result=types.CodeExecutionResult(
                outcome=types.Outcome.OUTCOME_OK, output="2\n"
            )
        ),
        types.Part(text="so: two"),
    ]
    writer = LlmAgent(name="writer", model=ScriptedModel([parts]))
    failing = LlmAgent(
        name="failing",
        model=ScriptedModel(
            [LlmResponse(error_code="RESOURCE_EXHAUSTED", error_message="quota used up")]
        ),
    )
    calls = [function_call("writer", {"request": "x"}), function_call("failing", {"request": "y"})]
    parent = LlmAgent(
        name="parent",
        model=ScriptedModel([*calls, "done"]),
        tools=[AgentTool(writer), AgentTool(failing)],
    )
    events = await TestRunner(parent).run("go")
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses[0] == {"result": "print(2)\n2\nso: two"}
    assert responses[1] == {
        "status": "error",
        "error": "Agent 'failing' failed: quota used up",
    }
    # The failed agent tool fails the caller's outcome (failure-aware, like a failing tool).
    outcome = [e.actions.agent_outcome for e in events if e.actions.agent_outcome][-1]
    assert outcome.status == "failure" and "failing" in outcome.reason

    # A workflow agent takes its first sub-agent's input schema, its last's output schema.
    first = LlmAgent(name="first", model=ScriptedModel(["step"]), input_schema=Question)
    last = LlmAgent(
        name="last", model=ScriptedModel(['{"text": "ok", "confidence": 1}']), output_schema=Answer
    )
    pipeline = AgentTool(SequentialAgent(name="pipeline", sub_agents=[first, last]))
    assert set(_declaration(pipeline).parameters.properties) == {"topic", "level"}
    runner = TestRunner(
        LlmAgent(
            name="caller",
            model=ScriptedModel([function_call("pipeline", {"topic": "t"}), "done"]),
            tools=[pipeline],
        )
    )
    events = await runner.run("go")
    assert events[1].get_function_responses()[0].response == {"text": "ok", "confidence": 1.0}
