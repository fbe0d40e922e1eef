"""Code execution in the LLM flow: a code block runs, the model reads its result."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.code_executors import (
    BaseCodeExecutor,
    BuiltInCodeExecutor,
    CodeExecutionInput,
    CodeExecutionResult,
    File,
    SandboxedCodeExecutor,
    UnsafeLocalCodeExecutor,
)
from pyadk.flows.processors import code_execution
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import ScriptedModel, Stream, TestRunner

CODE_REPLY = "Let me compute it.\n```python\nprint(1+1)\n```\nThis text is dropped."


class RecordingExecutor(BaseCodeExecutor):
    """Runs nothing: records the inputs and answers with scripted results."""

    results: list[CodeExecutionResult] = []
    inputs: list[CodeExecutionInput] = []

    def execute_code(
        self, invocation_context: Any, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        self.inputs.append(code_execution_input)
        return self.results[len(self.inputs) - 1]


def _last_part(event: Any) -> types.Part:
    return event.content.parts[-1]


async def test_code_block_runs_and_the_model_reads_the_result() -> None:
    model = ScriptedModel([CODE_REPLY, "1 + 1 is 2."])
    agent = LlmAgent(name="calc", model=model, code_executor=SandboxedCodeExecutor())
    runner = TestRunner(agent)

    events = await runner.run("What is 1 + 1?")

    code_event, result_event, answer = events
    assert [p.text for p in code_event.content.parts[:-1]] == ["Let me compute it.\n"]
    assert _last_part(code_event).executable_code == types.ExecutableCode(
        code="print(1+1)", language="PYTHON"
    )
    result = _last_part(result_event).code_execution_result
    assert result.outcome == types.Outcome.OUTCOME_OK
    assert result.output == "Code execution result:\n2\n\n"
    assert result_event.author == "calc" and result_event.has_trailing_code_execution_result()
    # As in google-adk, only a trailing result (not trailing code) keeps a step going.
    assert [e.is_final_response() for e in events] == [True, False, True]
    assert answer.text == "1 + 1 is 2."
    # The second call sees the code and its output as text between the delimiters.
    second = model.requests[1].contents
    assert [c.role for c in second] == ["user", "model", "user"]
    assert second[1].parts[-1].text == "```tool_code\nprint(1+1)\n```"
    assert second[2].parts[0].text == "```tool_output\nCode execution result:\n2\n\n\n```"
    # The stored history keeps the structured parts.
    stored = (await runner.session()).events
    assert _last_part(stored[1]).executable_code is not None
    assert _last_part(stored[2]).code_execution_result is not None


async def test_streamed_code_block_runs_once() -> None:
    from pyadk.agents.run_config import RunConfig, StreamingMode

    model = ScriptedModel([Stream(["```python\n", "print(3*3)\n```"]), "9"])
    agent = LlmAgent(name="calc", model=model, code_executor=SandboxedCodeExecutor())
    events = await TestRunner(agent).run(
        "3*3?", run_config=RunConfig(streaming_mode=StreamingMode.SSE)
    )
    results = [e for e in events if e.has_trailing_code_execution_result()]
    assert len(results) == 1
    assert "9" in _last_part(results[0]).code_execution_result.output
    assert events[-1].text == "9"


async def test_a_failing_block_reports_stderr_and_the_model_may_retry() -> None:
    model = ScriptedModel(["```python\n1/0\n```", "```python\nprint(2)\n```", "done"])
    agent = LlmAgent(name="calc", model=model, code_executor=SandboxedCodeExecutor())
    events = await TestRunner(agent).run("go")

    results = [_last_part(e).code_execution_result for e in events if e.content]
    results = [r for r in results if r is not None]
    assert results[0].outcome == types.Outcome.OUTCOME_FAILED
    assert "ZeroDivisionError: division by zero" in results[0].output
    assert 'File "<code>", line 1' in results[0].output
    assert "_sandbox_child" not in results[0].output
    assert results[1].outcome == types.Outcome.OUTCOME_OK
    assert events[-1].text == "done"


async def test_consecutive_failures_stop_after_error_retry_attempts() -> None:
    failing = "```python\nraise ValueError('nope')\n```"
    model = ScriptedModel([failing, failing, failing])
    executor = SandboxedCodeExecutor(error_retry_attempts=2)
    runner = TestRunner(LlmAgent(name="calc", model=model, code_executor=executor))

    events = await runner.run("go")

    ran = [e for e in events if e.has_trailing_code_execution_result()]
    assert len(ran) == 2  # the third block is not run: the model's answer stands
    assert model.call_count == 3
    assert events[-1].is_final_response()
    assert "raise ValueError" in events[-1].text
    # A new invocation starts counting afresh.
    model.replies += ["```python\nprint('ok')\n```", "fine"]
    events = await runner.run("again")
    assert "ok" in _last_part(events[1]).code_execution_result.output


async def test_a_success_resets_the_failure_count() -> None:
    executor = RecordingExecutor(error_retry_attempts=2, inputs=[])
    executor.results = [
        CodeExecutionResult(stderr="boom"),
        CodeExecutionResult(stdout="fine"),
        CodeExecutionResult(stderr="boom"),
        CodeExecutionResult(stderr="boom"),
    ]
    block = "```python\npass\n```"
    model = ScriptedModel([block] * 5)
    events = await TestRunner(LlmAgent(name="a", model=model, code_executor=executor)).run("go")
    assert len(executor.inputs) == 4
    assert model.call_count == 5 and events[-1].text == block


async def test_stateful_executor_gets_the_session_id_stateless_none() -> None:
    stateful = RecordingExecutor(stateful=True, inputs=[])
    stateful.results = [CodeExecutionResult(stdout="1")]
    model = ScriptedModel(["```python\nx = 1\n```", "ok"])
    runner = TestRunner(LlmAgent(name="a", model=model, code_executor=stateful))
    await runner.run("go")
    assert stateful.inputs[0].execution_id == "test_session"

    stateless = RecordingExecutor(inputs=[])
    stateless.results = [CodeExecutionResult(stdout="1")]
    model = ScriptedModel(["```python\nx = 1\n```", "ok"])
    await TestRunner(LlmAgent(name="a", model=model, code_executor=stateless)).run("go")
    assert stateless.inputs[0].execution_id is None


async def test_a_stateful_sandbox_keeps_variables_across_blocks_of_a_session() -> None:
    executor = SandboxedCodeExecutor(stateful=True)
    model = ScriptedModel(["```python\ntotal = 40\n```", "```python\nprint(total + 2)\n```", "42"])
    try:
        events = await TestRunner(LlmAgent(name="a", model=model, code_executor=executor)).run("go")
    finally:
        executor.close()
    results = [_last_part(e).code_execution_result for e in events if e.content]
    outputs = [r.output for r in results if r is not None]
    assert outputs == ["Code execution result:\n\n", "Code execution result:\n42\n\n"]


async def test_output_files_become_artifacts() -> None:
    code = "```python\nopen('result.csv', 'w').write('a,b\\n1,2\\n')\n```"
    model = ScriptedModel([code, "saved"])
    agent = LlmAgent(name="a", model=model, code_executor=SandboxedCodeExecutor())
    runner = TestRunner(agent)
    events = await runner.run("go")
    result_event = events[1]
    assert result_event.actions.artifact_delta == {"result.csv": 0}
    assert "Saved artifacts:\n`result.csv`" in _last_part(result_event).code_execution_result.output
    saved = await runner.artifact_service.load_artifact(
        app_name="test_app", user_id="test_user", session_id="test_session", filename="result.csv"
    )
    assert saved is not None and saved.inline_data.data == b"a,b\n1,2\n"


async def test_an_executor_that_raises_gives_a_failed_result() -> None:
    class Broken(BaseCodeExecutor):
        def execute_code(self, invocation_context: Any, code_execution_input: Any) -> Any:
            raise RuntimeError("executor down")

    model = ScriptedModel(["```python\nprint(1)\n```", "sorry"])
    events = await TestRunner(LlmAgent(name="a", model=model, code_executor=Broken())).run("go")
    result = _last_part(events[1]).code_execution_result
    assert result.outcome == types.Outcome.OUTCOME_FAILED
    assert "RuntimeError: executor down" in result.output
    assert events[-1].text == "sorry"


async def test_text_without_code_is_a_plain_answer() -> None:
    model = ScriptedModel(["No code needed: 4."])
    agent = LlmAgent(name="a", model=model, code_executor=SandboxedCodeExecutor())
    events = await TestRunner(agent).run("2+2?")
    assert [e.text for e in events] == ["No code needed: 4."]


async def test_custom_delimiters() -> None:
    executor = SandboxedCodeExecutor(code_block_delimiters=[("<run>", "</run>")])
    model = ScriptedModel(["<run>print(6*7)</run>", "42"])
    events = await TestRunner(LlmAgent(name="a", model=model, code_executor=executor)).run("go")
    assert "42" in _last_part(events[1]).code_execution_result.output
    assert model.requests[1].contents[1].parts[-1].text == "<run>print(6*7)</run>"


async def test_unsafe_local_executor_runs_in_the_flow() -> None:
    model = ScriptedModel(["```python\nprint(2**10)\n```", "1024"])
    agent = LlmAgent(name="a", model=model, code_executor=UnsafeLocalCodeExecutor())
    events = await TestRunner(agent).run("go")
    assert "1024" in _last_part(events[1]).code_execution_result.output


async def test_built_in_executor_adds_the_tool_and_runs_nothing_locally() -> None:
    gemini_reply = types.Content(
        role="model",
        parts=[
            types.Part(executable_code=types.ExecutableCode(code="print(2)", language="PYTHON")),
            types.Part(
                code_execution_result=types.CodeExecutionResult(
                    outcome=types.Outcome.OUTCOME_OK, output="2\n"
                )
            ),
            types.Part(text="It is 2."),
        ],
    )
    model = ScriptedModel([gemini_reply, "Still 2."], model="gemini-2.5-flash")
    agent = LlmAgent(name="g", model=model, code_executor=BuiltInCodeExecutor())
    runner = TestRunner(agent)

    events = await runner.run("1+1?")

    assert len(events) == 1 and events[0].is_final_response()
    assert events[0].content == gemini_reply  # nothing ran, nothing was rewritten
    tools = model.requests[0].config.tools
    assert tools == [types.Tool(code_execution={})]
    # Next turn: the earlier code part reaches the model as text.
    await runner.run("and again?")
    history = model.requests[1].contents
    assert history[1].parts[0].executable_code is not None  # not trailing: kept


async def test_built_in_executor_refuses_non_gemini_models() -> None:
    model = ScriptedModel(["hi"], model="gpt-4o")
    agent = LlmAgent(name="asker", model=model, code_executor=BuiltInCodeExecutor())
    with pytest.raises(ValueError, match=r"Agent 'asker'.*'gpt-4o'.*SandboxedCodeExecutor"):
        await TestRunner(agent).run("hi")


def test_built_in_executor_model_names(monkeypatch: pytest.MonkeyPatch) -> None:
    executor = BuiltInCodeExecutor()
    for name in ("gemini-2.0-flash", "models/gemini-2.5-pro", "gemini/gemini-2.5-flash"):
        request = LlmRequest(model=name)
        executor.process_llm_request(request)
        assert request.config.tools == [types.Tool(code_execution={})]
    with pytest.raises(ValueError, match="not supported for model 'llama3'"):
        executor.process_llm_request(LlmRequest(model="llama3"))
    monkeypatch.setenv("ADK_DISABLE_GEMINI_MODEL_ID_CHECK", "1")
    executor.process_llm_request(LlmRequest(model="llama3"))


def test_built_in_tool_reaches_gemini_as_code_execution() -> None:
    pytest.importorskip("google.genai")
    from pyadk.models.gemini import _to_genai_config

    request = LlmRequest(model="gemini-2.5-flash")
    BuiltInCodeExecutor().process_llm_request(request)
    config = _to_genai_config(request.config)
    assert config.tools is not None and config.tools[0].code_execution is not None


def test_agent_without_code_executor_has_no_code_execution_processor() -> None:
    plain = LlmAgent(name="plain", model=ScriptedModel([]))
    flow = plain._llm_flow
    assert code_execution.request_processor not in flow.request_processors
    assert code_execution.response_processor not in flow.response_processors

    coder = LlmAgent(name="coder", model=ScriptedModel([]), code_executor=SandboxedCodeExecutor())
    flow = coder._llm_flow
    names = [type(p).__name__ for p in flow.request_processors]
    assert (
        names.index("CodeExecutionRequestProcessor")
        == names.index("OutputSchemaRequestProcessor") - 1
    )
    assert flow.response_processors[-1] is code_execution.response_processor
    code_execution.install(flow)  # idempotent
    assert flow.request_processors.count(code_execution.request_processor) == 1


def test_code_executor_field_is_typed() -> None:
    with pytest.raises(ValueError):
        LlmAgent(name="a", code_executor="python")  # type: ignore[arg-type]


async def test_optimize_data_file_is_refused() -> None:
    with pytest.raises(ValueError, match="optimize_data_file"):
        SandboxedCodeExecutor(optimize_data_file=True)
    with pytest.raises(ValueError, match="optimize_data_file"):
        UnsafeLocalCodeExecutor(optimize_data_file=True)
    custom = RecordingExecutor(optimize_data_file=True)
    agent = LlmAgent(name="data", model=ScriptedModel(["hi"]), code_executor=custom)
    with pytest.raises(ValueError, match="Agent 'data': optimize_data_file=True is not supported"):
        await TestRunner(agent).run("hi")


def test_file_dataclass() -> None:
    assert File(name="a.txt", content=b"x").mime_type == "text/plain"


async def test_code_in_the_models_own_thoughts_is_not_run() -> None:
    thought = types.Part(text="Maybe:\n```python\nprint('no')\n```", thought=True)
    model = ScriptedModel([[thought, "The answer is 4."]])
    agent = LlmAgent(name="a", model=model, code_executor=SandboxedCodeExecutor())
    events = await TestRunner(agent).run("2+2?")
    assert len(events) == 1 and events[0].text == "The answer is 4."


async def test_code_in_a_plan_re_act_action_runs() -> None:
    from pyadk.planners import PlanReActPlanner

    reply = "/*ACTION*/\n```python\nprint(7 * 6)\n```"
    model = ScriptedModel([reply, "/*FINAL_ANSWER*/\n42"])
    agent = LlmAgent(
        name="planner_coder",
        model=model,
        planner=PlanReActPlanner(),
        code_executor=SandboxedCodeExecutor(),
    )
    events = await TestRunner(agent).run("6*7?")
    results = [e for e in events if e.has_trailing_code_execution_result()]
    assert len(results) == 1 and "42" in _last_part(results[0]).code_execution_result.output
    assert events[-1].text.strip() == "42"


def test_code_parts_round_trip_through_the_gemini_adapter() -> None:
    pytest.importorskip("google.genai")
    from pyadk.models.gemini import _to_genai_content

    content = types.Content(
        role="model",
        parts=[
            types.Part(executable_code=types.ExecutableCode(code="print(1)", language="PYTHON")),
            types.Part(
                code_execution_result=types.CodeExecutionResult(
                    outcome=types.Outcome.OUTCOME_OK, output="1\n"
                )
            ),
        ],
    )
    genai_content = _to_genai_content(content)
    assert genai_content.parts[0].executable_code.code == "print(1)"
    assert types.Content.model_validate(genai_content) == content


async def test_built_in_executor_saves_generated_images_as_artifacts() -> None:
    image = types.Part(
        inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG...", display_name="plot.png")
    )
    model = ScriptedModel([[image, "Here is the plot."]], model="gemini-2.5-flash")
    agent = LlmAgent(name="g", model=model, code_executor=BuiltInCodeExecutor())
    runner = TestRunner(agent)
    events = await runner.run("plot it")
    saved, answer = events
    assert saved.content is None and saved.actions.artifact_delta == {"plot.png": 0}
    assert answer.content.parts[0].text == "Saved as artifact: plot.png. "
    assert answer.content.parts[0].inline_data is None
    artifact = await runner.artifact_service.load_artifact(
        app_name="test_app", user_id="test_user", session_id="test_session", filename="plot.png"
    )
    assert artifact is not None and artifact.inline_data.data == b"\x89PNG..."
