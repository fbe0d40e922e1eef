"""LiteLlm construction: keyword arguments go to every litellm call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pyadk import types
from pyadk.models import LiteLlm, LlmRequest
from pyadk.testing.fixture_server import FixtureServer, json_response
from pyadk.testing.model_conformance import Call, OpenAIWire, generate


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def test_unknown_keyword_arguments_become_litellm_arguments() -> None:
    llm = LiteLlm("ollama_chat/llama3.2", api_base="http://127.0.0.1:11434", num_ctx=4096)
    assert llm.model == "ollama_chat/llama3.2"
    assert llm.additional_args == {"api_base": "http://127.0.0.1:11434", "num_ctx": 4096}


async def test_additional_arguments_reach_the_request(server: FixtureServer) -> None:
    server.enqueue(OpenAIWire().text("ok"))
    llm = LiteLlm(
        "openai/fixture-model",
        api_base=f"{server.base_url}/v1",
        api_key="k",
        max_retries=0,
        temperature=0.3,
    )
    request = LlmRequest(contents=[types.UserContent("hi")])
    request.config.temperature = 0.9  # the constructor's arguments win, as in litellm calls
    (answer,) = await generate(llm, request)
    assert answer.content is not None and answer.content.text == "ok"
    body = server.requests[0].json()
    assert (body["model"], body["temperature"]) == ("fixture-model", 0.3)


async def test_reasoning_content_is_kept_and_sent_back(server: FixtureServer) -> None:
    # DeepSeek through LiteLLM: the reasoning of a turn goes back with that turn.
    message = {"role": "assistant", "content": "42", "reasoning_content": "6 times 7"}
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "reasoner",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    server.enqueue(json_response(completion), OpenAIWire().text("ok"))
    llm = LiteLlm("openai/reasoner", api_base=f"{server.base_url}/v1", api_key="k", max_retries=0)
    request = LlmRequest(contents=[types.UserContent("6*7?")])
    (answer,) = await generate(llm, request)
    assert answer.content is not None
    assert answer.content.parts == [
        types.Part(text="6 times 7", thought=True),
        types.Part(text="42"),
    ]
    request.contents += [answer.content, types.UserContent("and 6*8?")]
    await generate(llm, request)
    assistant = server.requests[1].json()["messages"][1]
    assert assistant == {"role": "assistant", "content": "42", "reasoning_content": "6 times 7"}


PARIS_CALL = Call("get_weather", {"city": "Paris"}, "c1")


@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
async def test_reasoning_in_vllms_field_is_read_and_goes_back_as_reasoning_content(
    server: FixtureServer, stream: bool
) -> None:
    # LiteLLM reads vLLM's "reasoning" into its own reasoning_content, the one field
    # LiteLlm sends back (unlike OpenAIChat, which answers in the server's field).
    wire = OpenAIWire(reasoning_field="reasoning")
    server.enqueue(
        wire.reasoning("Paris, so call the tool.", PARIS_CALL, stream=stream),
        wire.text("Sunny."),
    )
    llm = LiteLlm("openai/reasoner", api_base=f"{server.base_url}/v1", api_key="k", max_retries=0)
    request = LlmRequest(contents=[types.UserContent("Paris?")])
    *_, answer = await generate(llm, request, stream=stream)
    assert answer.content is not None and answer.content.parts is not None
    thought, call = answer.content.parts
    assert (thought.thought, thought.text) == (True, "Paris, so call the tool.")
    assert call.function_call is not None and call.function_call.id == "c1"
    result = types.FunctionResponse(id="c1", name="get_weather", response={"sky": "sunny"})
    request.contents += [answer.content, types.UserContent([types.Part(function_response=result)])]
    await generate(llm, request)
    (assistant,) = [m for m in server.requests[1].json()["messages"] if m["role"] == "assistant"]
    assert assistant["reasoning_content"] == "Paris, so call the tool."
    assert "reasoning" not in assistant
