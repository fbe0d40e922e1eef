"""UserSimulatorProvider: the simulator of each eval case, from the eval config's
``user_simulator_config`` and the case's conversation or scenario."""

from __future__ import annotations

from typing import Any

from pyadk.evaluation.eval_case import EvalCase
from pyadk.evaluation.simulation.llm_backed_user_simulator import LlmBackedUserSimulatorConfig
from pyadk.evaluation.simulation.static_user_simulator import StaticUserSimulator
from pyadk.evaluation.simulation.user_simulator import (
    _SIMULATOR_BY_CONFIG_TYPE,
    BaseUserSimulatorConfig,
    UserSimulator,
)


class UserSimulatorProvider:
    """A fixed conversation replays its messages; a scenario gets the simulator
    registered for the config's class (:class:`LlmBackedUserSimulator` by default)."""

    def __init__(self, user_simulator_config: BaseUserSimulatorConfig | None = None) -> None:
        if user_simulator_config is None:
            user_simulator_config = LlmBackedUserSimulatorConfig()
        elif not isinstance(user_simulator_config, BaseUserSimulatorConfig):
            raise ValueError(
                "user_simulator_config must be a BaseUserSimulatorConfig, got "
                f"{type(user_simulator_config).__name__}"
            )
        self._user_simulator_config = user_simulator_config

    @property
    def user_simulator_config(self) -> BaseUserSimulatorConfig:
        """The config scenario cases are simulated with."""
        return self._user_simulator_config

    def provide(self, eval_case: EvalCase) -> UserSimulator:
        """A new simulator for one run of ``eval_case``; ValueError when the case has
        both a conversation and a scenario, or neither, or no simulator is registered
        for the config's class (or its model cannot be resolved)."""
        scenario = eval_case.conversation_scenario
        if scenario is None:
            if not eval_case.conversation:
                raise ValueError(
                    f"Eval case {eval_case.eval_id!r} has neither a conversation nor a "
                    "conversation scenario: give one."
                )
            return StaticUserSimulator(static_conversation=eval_case.conversation)
        if eval_case.conversation:
            raise ValueError(
                f"Eval case {eval_case.eval_id!r} has both a conversation and a "
                "conversation scenario: give one."
            )
        config = self._user_simulator_config
        simulator_cls: Any = _SIMULATOR_BY_CONFIG_TYPE.get(type(config))
        if simulator_cls is None:
            known = ", ".join(sorted(t.__name__ for t in _SIMULATOR_BY_CONFIG_TYPE)) or "none"
            raise ValueError(
                f"No user simulator is registered for {type(config).__name__} "
                f"(registered: {known}); use register_user_simulator()."
            )
        simulator: UserSimulator = simulator_cls(config=config, conversation_scenario=scenario)
        return simulator
