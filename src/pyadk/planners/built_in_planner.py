"""BuiltInPlanner: let the model think with its own reasoning features."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.planners.base_planner import BasePlanner
from pyadk.utils.fast_models import set_field

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.models.llm_request import LlmRequest

logger = logging.getLogger(__name__)


class BuiltInPlanner(BasePlanner):
    """Puts ``thinking_config`` on every model request of the agent; adds no instruction
    and leaves the responses as they are.

    The model must support thinking: a model that does not may reject the request.
    """

    thinking_config: types.ThinkingConfig | None
    """The thinking settings sent as ``generate_content_config.thinking_config``."""

    def __init__(self, *, thinking_config: types.ThinkingConfig | Any) -> None:
        """``thinking_config``: a ThinkingConfig (pyadk's or google-genai's) or a dict;
        None sends none."""
        self.thinking_config = (
            None
            if thinking_config is None
            else types.ThinkingConfig.model_validate(thinking_config)
        )

    def apply_thinking_config(self, llm_request: LlmRequest) -> None:
        """Sets ``llm_request.config.thinking_config``, replacing one the agent's
        ``generate_content_config`` gave."""
        if self.thinking_config is None:
            return
        config = llm_request.config
        if config.thinking_config is not None:
            logger.debug("BuiltInPlanner replaces the thinking_config of generate_content_config.")
        set_field(config, "thinking_config", self.thinking_config)

    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str | None:
        """No instruction: the model plans with its own thinking."""
        return None

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        """Keeps the response as it is."""
        return None
