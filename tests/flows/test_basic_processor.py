"""Basic processor: the model name and a generation config of the request's own."""

from __future__ import annotations

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.flows.processors.basic import request_processor
from pyadk.models.llm_request import LlmRequest
from pyadk.sessions import InMemorySessionService
from pyadk.testing import ScriptedModel


async def _processed(agent: LlmAgent, request: LlmRequest) -> LlmRequest:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    ctx = InvocationContext(session_service=service, session=session, agent=agent)
    await request_processor.process(ctx, request)
    return request


async def test_the_agents_config_is_copied_into_the_request():
    config = types.GenerateContentConfig(temperature=0.2)
    agent = LlmAgent(name="a", model=ScriptedModel([]), generate_content_config=config)
    request = await _processed(agent, LlmRequest())
    assert request.model == agent.canonical_model.model
    assert request.config.temperature == 0.2 and request.config is not config
    assert "config" in request.model_fields_set


async def test_without_an_agent_config_the_request_keeps_its_own_default():
    request = LlmRequest()
    default = request.config
    await _processed(LlmAgent(name="a", model=ScriptedModel([])), request)
    assert request.config is default and request.config == types.GenerateContentConfig()
    assert "config" in request.model_fields_set


async def test_a_config_set_before_is_replaced_by_the_defaults():
    request = LlmRequest(config=types.GenerateContentConfig(temperature=0.9))
    await _processed(LlmAgent(name="a", model=ScriptedModel([])), request)
    assert request.config == types.GenerateContentConfig()
