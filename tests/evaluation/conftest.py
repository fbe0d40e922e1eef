"""Fixtures of the evaluation tests: a judge model for the judged metrics, found by name
(``scripted-judge``), answering from a script or a function of the prompt."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Any

import pytest

from pyadk.models import BaseLlm, LLMRegistry, LlmRequest, LlmResponse
from pyadk.models import registry as registry_module
from pyadk.testing.scripted_models import responses_for

JUDGE_NAME = "scripted-judge"


def section(prompt: str, tag: str) -> str:
    """The text between ``<tag>`` and ``</tag>`` in a judge prompt."""
    return prompt.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0]


def rubric_verdicts(prompt: str) -> str:
    """A rubric judge's answer: for each rubric "... X.", yes when the final answer
    holds the word X."""
    answer = section(prompt, "final_answer").lower()
    blocks = []
    for rubric_id, text in re.findall(
        r"^- \[id: (.+?)\] (.+)$", section(prompt, "properties"), re.M
    ):
        word = text.rstrip(".").split()[-1].lower()
        verdict = "yes" if word in answer else "no"
        blocks.append(f"ID: {rubric_id}\nProperty: {text}\nRationale: {word}?\nVerdict: {verdict}")
    return "\n\n".join(blocks)


class JudgeScript:
    """What the judge answers: the next scripted reply, else ``function(prompt)``."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.replies: list[Any] = []
        self.function: Callable[[str], Any] | None = None
        self.prompts: list[str] = []

    def answer(self, prompt: str) -> Any:
        self.prompts.append(prompt)
        if self.replies:
            return self.replies.pop(0)
        if self.function is not None:
            return self.function(prompt)
        raise AssertionError(f"the judge was asked once more than scripted: {prompt[:200]!r}")


SCRIPT = JudgeScript()


class ScriptedJudge(BaseLlm):
    """Serves ``scripted-judge``; every instance answers from :data:`SCRIPT`."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [JUDGE_NAME]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = llm_request.contents[-1].parts[0].text or ""
        async for response in responses_for(SCRIPT.answer(prompt), stream):
            yield response


@pytest.fixture
def judge() -> Iterator[JudgeScript]:
    """The script of a registered ``scripted-judge`` model (fresh for each test)."""
    SCRIPT.reset()
    LLMRegistry.register(ScriptedJudge)
    yield SCRIPT
    for pattern in ScriptedJudge.supported_models():
        registry_module._registry.pop(pattern, None)
    registry_module._resolve_cached.cache_clear()


USER_MODEL_NAME = "scripted-user"

USER_SCRIPT = JudgeScript()
"""What the simulated user's model writes (same script mechanics as the judge's)."""


class ScriptedUser(BaseLlm):
    """Serves ``scripted-user``; every instance answers from :data:`USER_SCRIPT`."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [USER_MODEL_NAME]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = llm_request.contents[-1].parts[0].text or ""
        async for response in responses_for(USER_SCRIPT.answer(prompt), stream):
            yield response


@pytest.fixture
def simulated_user() -> Iterator[JudgeScript]:
    """The script of a registered ``scripted-user`` model (fresh for each test)."""
    USER_SCRIPT.reset()
    LLMRegistry.register(ScriptedUser)
    yield USER_SCRIPT
    for pattern in ScriptedUser.supported_models():
        registry_module._registry.pop(pattern, None)
    registry_module._resolve_cached.cache_clear()
