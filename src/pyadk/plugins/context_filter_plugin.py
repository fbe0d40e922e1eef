"""ContextFilterPlugin: sends the model only the latest invocations of the history."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pyadk import types
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse

logger = logging.getLogger(__name__)


def _is_user_input(content: types.Content) -> bool:
    """A user's message (function responses have role ``user`` too, but are tool output)."""
    if content.role != "user":
        return False
    return not any(part.function_response is not None for part in content.parts or ())


def _invocation_starts(contents: Sequence[types.Content]) -> list[int]:
    """Where each invocation begins: at the first of one or more consecutive user
    messages."""
    starts: list[int] = []
    previous = False
    for index, content in enumerate(contents):
        current = _is_user_input(content)
        if current and not previous:
            starts.append(index)
        previous = current
    return starts


def _keep_call_pairs(contents: Sequence[types.Content], split: int) -> int:
    """``split`` moved back until no kept function response lacks its call.

    Walks from the end collecting the ids of responses whose call was not seen yet;
    the first index at or before ``split`` where none is missing is safe.
    """
    missing: set[str] = set()
    for index in range(len(contents) - 1, -1, -1):
        for part in reversed(contents[index].parts or ()):
            response = part.function_response
            if response is not None and response.id:
                missing.add(response.id)
            call = part.function_call
            if call is not None and call.id:
                missing.discard(call.id)
        if index <= split and not missing:
            return index
    return 0


class ContextFilterPlugin(BasePlugin):
    """Trims each model request's history to the last ``num_invocations_to_keep``
    invocations, then applies ``custom_filter`` (a function from the list of contents
    to the contents to send).

    An invocation starts with one or more consecutive user messages and holds every
    model turn, call and result up to the next user message. A request is only trimmed
    when its history holds at least ``num_invocations_to_keep + remove_amount``
    invocations (then down to ``num_invocations_to_keep``). A cut never separates a
    function response from its call: it moves earlier until both are kept. Only the
    request is trimmed; the session keeps every event. A filter that raises is logged
    and the request goes out as it was.
    """

    def __init__(
        self,
        num_invocations_to_keep: int | None = None,
        custom_filter: Callable[[list[types.Content]], list[types.Content]] | None = None,
        name: str = "context_filter_plugin",
        remove_amount: int = 1,
    ) -> None:
        """ValueError when ``remove_amount`` is below 1."""
        if remove_amount < 1:
            raise ValueError(f"remove_amount must be at least 1, got {remove_amount}.")
        super().__init__(name)
        self._num_invocations_to_keep = num_invocations_to_keep
        self._custom_filter = custom_filter
        self._remove_amount = remove_amount

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        try:
            contents = llm_request.contents
            keep = self._num_invocations_to_keep
            if keep is not None and keep > 0:
                starts = _invocation_starts(contents)
                if len(starts) >= keep + self._remove_amount:
                    split = _keep_call_pairs(contents, starts[-keep])
                    contents = contents[split:]
            if self._custom_filter is not None:
                contents = self._custom_filter(contents)
            llm_request.contents = contents
        except Exception:
            logger.exception(
                "%s could not filter the request of agent %r; sending it unfiltered",
                self.name,
                callback_context.agent_name,
            )
        return None
