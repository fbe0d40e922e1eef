"""Request processors that never await: called directly by the flow, awaitable too."""

from __future__ import annotations

from pyadk.agents import LlmAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.flows.processors.base import SilentRequestProcessor, SyncRequestProcessor
from pyadk.flows.processors.identity import IdentityRequestProcessor
from pyadk.models.llm_request import LlmRequest
from pyadk.testing import ScriptedModel, TestRunner


class Marker(SyncRequestProcessor):
    """Appends one instruction, counting how it was run."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0

    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        self.calls += 1
        llm_request.append_instructions([self.text])


class AwaitedMarker(Marker):
    """Overrides ``process``: the flow must await it, not call ``process_now``."""

    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        llm_request.append_instructions(["(awaited)"])
        await super().process(invocation_context, llm_request)


class AsyncMarker(SilentRequestProcessor):
    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        llm_request.append_instructions(["async"])


async def _system_instruction(*processors: object) -> str:
    model = ScriptedModel(["ok"])
    agent = LlmAgent(name="a", model=model, instruction="Base.")
    agent._llm_flow.request_processors.extend(processors)  # type: ignore[arg-type]
    await TestRunner(agent).run("hi")
    return model.requests[-1].system_instruction_text()


async def test_sync_processors_run_in_order_among_async_ones():
    first, last = Marker("first"), Marker("last")
    text = await _system_instruction(first, AsyncMarker(), last)
    assert text.endswith("first\n\nasync\n\nlast")
    assert first.calls == last.calls == 1


async def test_an_overridden_process_is_awaited():
    marker = AwaitedMarker("marked")
    text = await _system_instruction(marker)
    assert text.endswith("(awaited)\n\nmarked") and marker.calls == 1


async def test_a_processor_added_after_a_run_is_used_on_the_next():
    model = ScriptedModel(["one", "two"])
    agent = LlmAgent(name="a", model=model, instruction="Base.")
    runner = TestRunner(agent)
    await runner.run("hi")
    marker = Marker("added")
    agent._llm_flow.request_processors.append(marker)
    await runner.run("again")
    assert not model.requests[0].system_instruction_text().endswith("added")
    assert model.requests[1].system_instruction_text().endswith("added")


async def test_process_and_run_async_still_work_for_callers_that_await_them():
    agent = LlmAgent(name="a", model=ScriptedModel([]))
    runner = TestRunner(agent)
    session = await runner.session()
    ctx = InvocationContext(session_service=runner.session_service, session=session, agent=agent)
    processor = IdentityRequestProcessor()
    awaited, generated = LlmRequest(), LlmRequest()
    await processor.process(ctx, awaited)
    assert [event async for event in processor.run_async(ctx, generated)] == []
    assert awaited.system_instruction_text() == generated.system_instruction_text()
    assert '"a"' in awaited.system_instruction_text()
