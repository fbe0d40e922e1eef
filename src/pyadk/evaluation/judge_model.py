"""JudgeModel: the model a judged metric asks, built from its ``JudgeModelOptions`` by
pyadk's model registry (so any registered model can judge, a scripted one offline)."""

from __future__ import annotations

from pyadk import types
from pyadk.evaluation.eval_metrics import JudgeModelOptions
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.registry import LLMRegistry


class JudgeModelError(RuntimeError):
    """The judge model answered with an error or not at all."""


class JudgeModel:
    """Resolves the judge's name at once (ValueError naming the metric when no model
    serves it) and makes the model on first use."""

    def __init__(self, options: JudgeModelOptions, metric_name: str) -> None:
        self.options = options
        try:
            self._model_class = LLMRegistry.resolve(options.judge_model)
        except (ValueError, ImportError) as error:
            raise ValueError(
                f"Metric {metric_name!r}: judge model {options.judge_model!r} "
                f"cannot be used: {error}"
            ) from None
        self._model: BaseLlm | None = None

    @property
    def name(self) -> str:
        """The judge model's name."""
        return self.options.judge_model

    def model(self) -> BaseLlm:
        """The model object (made on first use)."""
        if self._model is None:
            self._model = self._model_class(model=self.options.judge_model)
        return self._model

    def request(self, prompt: str) -> LlmRequest:
        """A request that sends ``prompt`` with the configured generation settings."""
        config = self.options.judge_model_config
        return LlmRequest(
            model=self.options.judge_model,
            contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
            config=config.model_copy(deep=True) if config else types.GenerateContentConfig(),
        )

    async def ask(self, llm_request: LlmRequest) -> LlmResponse:
        """The judge's complete (non-partial) answer; JudgeModelError when it answers
        with an error or not at all."""
        answer: LlmResponse | None = None
        generator = self.model().generate_content_async(llm_request, stream=False)
        try:
            async for response in generator:
                if not response.partial:
                    answer = response
        finally:
            await generator.aclose()
        if answer is None:
            raise JudgeModelError("the judge model returned no answer")
        if answer.error_code or answer.error_message:
            raise JudgeModelError(f"{answer.error_code}: {answer.error_message}")
        return answer

    def failure(self, error: Exception) -> str:
        """How a failed request is reported."""
        return f"judge model {self.name!r} failed: {type(error).__name__}: {error}"

    async def close(self) -> None:
        """Closes the model's client, if the model was made."""
        if self._model is not None:
            await self._model.close()
            self._model = None
