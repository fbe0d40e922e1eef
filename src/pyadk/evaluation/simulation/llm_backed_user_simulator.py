"""LlmBackedUserSimulator: a model, found by name in pyadk's model registry, writes the
user's messages after the scenario's fixed starting prompt."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import Field, field_validator

from pyadk import types
from pyadk.evaluation.conversation_scenarios import ConversationScenario
from pyadk.evaluation.evaluator import Evaluator
from pyadk.evaluation.simulation._templates import check_template
from pyadk.evaluation.simulation.llm_backed_user_simulator_prompts import (
    REQUIRED_PLACEHOLDERS,
    get_llm_backed_user_simulator_prompt,
)
from pyadk.evaluation.simulation.user_simulator import (
    BaseUserSimulatorConfig,
    NextUserMessage,
    Status,
    UserSimulator,
    register_user_simulator,
)
from pyadk.events.event import Event
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.registry import LLMRegistry

logger = logging.getLogger(__name__)

STOP_SIGNAL = "</finished>"
"""What the simulator writes to end the conversation (matched case-insensitively)."""


def _default_model_configuration() -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=10240)
    )


class LlmBackedUserSimulatorConfig(BaseUserSimulatorConfig):
    """Settings of :class:`LlmBackedUserSimulator` (``"type": "llm_backed"``)."""

    type: Literal["llm_backed"] = "llm_backed"
    model: str = "gemini-2.5-flash"
    """A model name pyadk's model registry resolves (any registered model)."""
    model_configuration: types.GenerateContentConfig = Field(
        default_factory=_default_model_configuration
    )
    """Generation settings of the simulator's requests."""
    max_allowed_invocations: int = 20
    """The most user messages (the starting prompt included) before the conversation is
    cut off; -1 for no limit."""
    custom_instructions: str | None = None
    """Instructions replacing pyadk's, with the placeholders ``{{ stop_signal }}``,
    ``{{ conversation_plan }}``, ``{{ conversation_history }}`` (and ``{{ persona }}``
    when the scenario has a persona)."""
    include_function_calls: bool = False
    """Show the simulator the agent's tool calls and results too."""

    @field_validator("custom_instructions")
    @classmethod
    def _valid_instructions(cls, value: str | None) -> str | None:
        if value is not None:
            check_template(value, REQUIRED_PLACEHOLDERS, "custom_instructions")
        return value


class LlmBackedUserSimulator(UserSimulator):
    """Sends the starting prompt first, then asks the model for each next message; the
    model's stop signal, or ``max_allowed_invocations``, ends the conversation."""

    config_type = LlmBackedUserSimulatorConfig

    def __init__(
        self, *, config: BaseUserSimulatorConfig, conversation_scenario: ConversationScenario
    ) -> None:
        super().__init__(config, config_type=LlmBackedUserSimulatorConfig)
        self._conversation_scenario = conversation_scenario
        self._invocation_count = 0
        model = self.config.model
        try:
            self._llm_class = LLMRegistry.resolve(model)
        except (ValueError, ImportError) as error:
            raise ValueError(f"User simulator model {model!r} cannot be used: {error}") from None
        self._llm: BaseLlm | None = None

    @property
    def config(self) -> LlmBackedUserSimulatorConfig:
        """The simulator's settings."""
        assert isinstance(self._config, LlmBackedUserSimulatorConfig)
        return self._config

    @classmethod
    def _summarize_conversation(
        cls, events: list[Event], include_function_calls: bool = False
    ) -> str:
        """The conversation as ``author: text`` lines (thoughts left out; tool calls and
        results only with ``include_function_calls``)."""
        lines = []
        for event in events:
            if event.partial or event.content is None:
                continue
            for part in event.content.parts or ():
                if part.text and not part.thought:
                    lines.append(f"{event.author}: {part.text}")
                elif include_function_calls and part.function_call is not None:
                    call = part.function_call
                    lines.append(f"{event.author} called tool {call.name!r} with {call.args}")
                elif include_function_calls and part.function_response is not None:
                    result = part.function_response
                    lines.append(f"tool {result.name!r} returned {result.response}")
        return "\n\n".join(lines)

    async def get_next_user_message(self, events: list[Event]) -> NextUserMessage:
        """The starting prompt, then the model's messages; TURN_LIMIT_REACHED after
        ``max_allowed_invocations`` messages, STOP_SIGNAL_DETECTED when the model writes
        the stop signal. RuntimeError when the model answers with an error or no text."""
        limit = self.config.max_allowed_invocations
        if 0 <= limit <= self._invocation_count:
            logger.warning("User simulator stopped at its limit of %d invocations", limit)
            return NextUserMessage(status=Status.TURN_LIMIT_REACHED)
        if self._invocation_count == 0:
            text = self._conversation_scenario.starting_prompt
        else:
            text = await self._ask_model(events)
        self._invocation_count += 1
        if STOP_SIGNAL.lower() in text.lower():
            return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
        return NextUserMessage(
            status=Status.SUCCESS,
            user_message=types.Content(role="user", parts=[types.Part(text=text)]),
        )

    async def _ask_model(self, events: list[Event]) -> str:
        scenario = self._conversation_scenario
        prompt = get_llm_backed_user_simulator_prompt(
            conversation_plan=scenario.conversation_plan,
            conversation_history=self._summarize_conversation(
                events, self.config.include_function_calls
            ),
            stop_signal=STOP_SIGNAL,
            custom_instructions=self.config.custom_instructions,
            user_persona=scenario.user_persona,
        )
        request = LlmRequest(
            model=self.config.model,
            contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
            config=self.config.model_configuration.model_copy(deep=True),
        )
        if self._llm is None:
            self._llm = self._llm_class(model=self.config.model)
        text, thought, error = "", False, None
        generator = self._llm.generate_content_async(request, stream=False)
        try:
            async for response in generator:
                if response.error_code or response.error_message:
                    error = f"the model answered with an error ({response.error_code}: "
                    error += f"{response.error_message})"
                    break
                if response.partial or response.content is None:
                    continue
                for part in response.content.parts or ():
                    thought = thought or bool(part.thought)
                    if part.text and not part.thought:
                        text += part.text
        finally:
            await generator.aclose()
        if error is None and not text.strip():
            error = "the model answered with thoughts only" if thought else "the model was silent"
        if error is not None:
            raise RuntimeError(f"User simulator {self.config.model!r}: no user message: {error}")
        return text.strip()

    def get_simulation_evaluator(self) -> Evaluator | None:
        raise NotImplementedError

    async def close(self) -> None:
        """Closes the model's client, if the model was made."""
        if self._llm is not None:
            await self._llm.close()
            self._llm = None


register_user_simulator(LlmBackedUserSimulatorConfig, LlmBackedUserSimulator)
