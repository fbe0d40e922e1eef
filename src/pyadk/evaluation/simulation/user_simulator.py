"""The user simulator interface: the next user message from the conversation so far,
or why there is none (the simulator's stop signal, its turn limit)."""

from __future__ import annotations

import abc
import enum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from pyadk import types
from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.evaluator import Evaluator
from pyadk.events.event import Event


class BaseUserSimulatorConfig(BaseModel):
    """A simulator's settings (``EvalConfig.user_simulator_config``). Each kind of
    simulator has a subclass whose ``type`` names it (``"llm_backed"``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    type: str | None = None


class Status(enum.Enum):
    """How :meth:`UserSimulator.get_next_user_message` came out."""

    SUCCESS = "success"
    TURN_LIMIT_REACHED = "turn_limit_reached"
    STOP_SIGNAL_DETECTED = "stop_signal_detected"
    NO_MESSAGE_GENERATED = "no_message_generated"


class NextUserMessage(EvalBaseModel):
    """The next user message (exactly when ``status`` is SUCCESS)."""

    status: Status
    user_message: types.Content | None = None

    @model_validator(mode="after")
    def _message_iff_success(self) -> NextUserMessage:
        if (self.status is Status.SUCCESS) == (self.user_message is None):
            raise ValueError("user_message is given exactly when the status is SUCCESS")
        return self


class UserSimulator(abc.ABC):
    """Plays the user of one eval case (make one per case and run)."""

    def __init__(
        self, config: BaseUserSimulatorConfig, config_type: type[BaseUserSimulatorConfig]
    ) -> None:
        try:
            self._config = config_type.model_validate(config.model_dump())
        except ValidationError as error:
            raise ValueError(
                f"{type(self).__name__} needs a {config_type.__name__}: {error}"
            ) from None

    @abc.abstractmethod
    async def get_next_user_message(self, events: list[Event]) -> NextUserMessage:
        """The next message to send, given every event of the conversation so far (the
        user's own messages included, as events authored by ``user``)."""

    def get_simulation_evaluator(self) -> Evaluator | None:
        """An evaluator of the simulation itself, if the simulator has one."""
        raise NotImplementedError

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Releases what the simulator holds (a model's client); no-op here."""


_SIMULATOR_BY_CONFIG_TYPE: dict[type[BaseUserSimulatorConfig], type[UserSimulator]] = {}


def register_user_simulator(
    config_type: type[BaseUserSimulatorConfig], simulator_type: type[UserSimulator]
) -> None:
    """Makes configs of ``config_type`` (told apart by their ``type``) build
    ``simulator_type``, which takes ``config=`` and ``conversation_scenario=``."""
    _SIMULATOR_BY_CONFIG_TYPE[config_type] = simulator_type


def registered_config_types() -> dict[str, type[BaseUserSimulatorConfig]]:
    """The registered config classes by their ``type`` value."""
    found: dict[str, type[BaseUserSimulatorConfig]] = {}
    for config_type in _SIMULATOR_BY_CONFIG_TYPE:
        tag = config_type.model_fields["type"].default
        if isinstance(tag, str):
            found[tag] = config_type
    return found


def parse_user_simulator_config(value: Any) -> BaseUserSimulatorConfig:
    """A config object from JSON, by its ``type`` (none: ``"llm_backed"``, as google-adk
    reads configs older than the field); ValueError naming the known types."""
    if isinstance(value, BaseUserSimulatorConfig):
        return value
    if not isinstance(value, dict):
        raise ValueError("a user simulator config is a JSON object")
    tag = value.get("type") or "llm_backed"
    known = registered_config_types()
    if tag not in known:
        names = ", ".join(sorted(known)) or "none"
        raise ValueError(f"user simulator type {tag!r} is not available in pyadk (known: {names})")
    return known[tag].model_validate({**value, "type": tag})
