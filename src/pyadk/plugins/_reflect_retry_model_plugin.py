"""ReflectAndRetryModelPlugin: a bad model response is answered with guidance to retry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins._reflect_retry_utils import (
    REFLECT_AND_RETRY_RESPONSE_TYPE,
    ScopedFailureTracker,
    TrackingScope,
    resolve_scope_key,
)
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.utils.ids import new_uuid4

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.models.llm_request import LlmRequest

RESERVED_TOOL_CALL_ERROR_TYPE = "RESERVED_TOOL_CALL"
"""The error type of a model response that calls the reflection tool itself."""

_SKIP_THOUGHT_SIGNATURE = b"skip_thought_signature_validator"
"""The signature Gemini accepts on a function call it did not produce."""

_GUIDANCE = """\
The model call failed ({error_type}: {error_details}).
This is retry {count} of {limit}. Look at what went wrong (for example a malformed tool
call: check the tool's name and give its arguments as a valid JSON object) and do not
repeat the same answer. Then try a corrected or different approach."""


class ReflectAndRetryModelPlugin(BasePlugin):
    """Turns a bad model response into a retry, up to ``max_retries`` in a row.

    A response is bad when it has an ``error_code`` and its ``finish_reason`` is one of
    ``on_model_errors`` (default: ``MALFORMED_FUNCTION_CALL``), or when it calls the
    reserved reflection tool ``adk_handle_model_error`` itself. The plugin replaces it
    with a call to that tool (which only it registers, in each request's tools), whose
    result holds the reflection guidance; the model is then called again. Failures are
    counted per model name within the scope; a good response resets the count. Past
    the limit, ``RuntimeError`` is raised (``throw_exception_if_retry_exceeded``), or
    the bad response is kept. Exceptions raised by the model are not handled here: see
    ``LlmAgent(model_retry=...)``.
    """

    def __init__(
        self,
        name: str = "reflect_retry_model_plugin",
        max_retries: int = 3,
        throw_exception_if_retry_exceeded: bool = True,
        tracking_scope: TrackingScope = TrackingScope.INVOCATION,
        on_model_errors: list[types.FinishReason] | None = None,
    ) -> None:
        super().__init__(name=name)
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ValueError(f"max_retries must be a non-negative integer, got {max_retries!r}.")
        if not isinstance(tracking_scope, TrackingScope):
            raise ValueError(
                f"tracking_scope must be a TrackingScope member, got {tracking_scope!r}."
            )
        self.max_retries = max_retries
        self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
        self.scope = tracking_scope
        if on_model_errors is None:
            on_model_errors = [types.FinishReason.MALFORMED_FUNCTION_CALL]
        self.on_model_errors = self._validate_model_errors(model_errors=on_model_errors)
        self._tracker = ScopedFailureTracker()

    def adk_handle_model_error(
        self,
        *,
        response_type: str,
        error_type: str | None,
        error_details: str | None,
        finish_reason: str | None,
        retry_count: int,
    ) -> dict[str, str]:
        """Reserved for the framework: answers a failed model call with guidance."""
        return {
            "reflection_guidance": _GUIDANCE.format(
                error_type=error_type or finish_reason or "error",
                error_details=error_details or "no details",
                count=retry_count,
                limit=self.max_retries,
            )
        }

    def _validate_model_errors(
        self, *, model_errors: list[types.FinishReason]
    ) -> list[types.FinishReason]:
        for reason in model_errors:
            if not isinstance(reason, types.FinishReason):
                raise ValueError(
                    f"on_model_errors must hold types.FinishReason members, got {reason!r}."
                )
        return list(model_errors)

    def _check_for_model_error(self, *, llm_response: LlmResponse) -> bool:
        if not llm_response.error_code:
            return False
        return llm_response.finish_reason in self.on_model_errors

    def _get_model_name_from_context(self, *, callback_context: CallbackContext) -> str:
        from pyadk.agents.llm_agent import LlmAgent

        agent = callback_context._invocation_context.agent
        if isinstance(agent, LlmAgent):
            model = agent.canonical_model
            if model.model:
                return model.model
        raise ValueError(
            f"ReflectAndRetryModelPlugin: agent {agent.name!r} has no model name to count "
            "failures under."
        )

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Registers the reflection tool for this request (not declared to the model)."""
        self._provide_reflection_tool(llm_request=llm_request)
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Replaces a bad response with a reflection call; a good one resets the count."""
        if self._has_reserved_tool_call(llm_response):
            return await self._handle_reserved_tool_call(
                callback_context=callback_context, llm_response=llm_response
            )
        if self._check_for_model_error(llm_response=llm_response):
            return await self._handle_model_error(
                callback_context=callback_context, llm_response=llm_response
            )
        if llm_response.partial:
            return None  # a chunk: the aggregated response decides
        await self._tracker.reset(
            self._get_model_scope_key(callback_context),
            self._get_model_name_from_context(callback_context=callback_context),
        )
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Drops the counts of an invocation that ended (INVOCATION scope)."""
        if self.scope is TrackingScope.INVOCATION and invocation_context.invocation_id:
            await self._tracker.forget_scope(invocation_context.invocation_id)

    def _provide_reflection_tool(self, *, llm_request: LlmRequest) -> None:
        from pyadk.tools.function_tool import FunctionTool

        name = self.adk_handle_model_error.__name__
        if name not in llm_request.tools_dict:
            llm_request.tools_dict[name] = FunctionTool(func=self.adk_handle_model_error)

    def _has_reserved_tool_call(self, llm_response: LlmResponse) -> bool:
        content = llm_response.content
        name = self.adk_handle_model_error.__name__
        return content is not None and any(
            part.function_call is not None and part.function_call.name == name
            for part in content.parts or ()
        )

    async def _handle_reserved_tool_call(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        retry = await self._handle_model_retry(
            callback_context=callback_context,
            llm_response=llm_response,
            error_type=RESERVED_TOOL_CALL_ERROR_TYPE,
            error_details=(
                f"The model called the reserved tool {self.adk_handle_model_error.__name__} "
                "itself. It is for the framework only: do not call it."
            ),
            finish_reason=types.FinishReason.OTHER,
        )
        if retry is not None:
            return retry
        return LlmResponse(
            error_code=RESERVED_TOOL_CALL_ERROR_TYPE,
            error_message=(
                "The model called the reserved tool "
                f"{self.adk_handle_model_error.__name__} and the retry limit was reached."
            ),
        )

    async def _handle_model_error(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        retry = await self._handle_model_retry(
            callback_context=callback_context,
            llm_response=llm_response,
            error_type=llm_response.error_code,
            error_details=llm_response.error_message,
            finish_reason=llm_response.finish_reason,
        )
        return llm_response if retry is None else retry

    async def _handle_model_retry(
        self,
        *,
        callback_context: CallbackContext,
        llm_response: LlmResponse,
        error_type: str | None,
        error_details: str | None,
        finish_reason: types.FinishReason | None,
    ) -> LlmResponse | None:
        """Counts the failure: a reflection call within the limit, then raise or None."""
        scope_key = self._get_model_scope_key(callback_context)
        model_name = self._get_model_name_from_context(callback_context=callback_context)
        count = await self._tracker.increment(scope_key, model_name)
        if count <= self.max_retries:
            part = self._generate_model_retry_part(
                retry_count=count,
                error_type=error_type,
                error_details=error_details,
                finish_reason=finish_reason,
            )
            return LlmResponse(content=types.Content(role="model", parts=[part]))
        if self.throw_exception_if_retry_exceeded:
            raise RuntimeError(
                f"The model {model_name!r} failed {self.max_retries + 1} times in a row "
                f"(max_retries={self.max_retries}); last error: "
                f"{error_type}: {error_details or 'no details'}."
            )
        return None

    def _generate_model_retry_part(
        self,
        *,
        retry_count: int,
        error_type: str | None,
        error_details: str | None,
        finish_reason: types.FinishReason | None,
    ) -> types.Part:
        args: dict[str, Any] = {
            "response_type": REFLECT_AND_RETRY_RESPONSE_TYPE,
            "error_type": error_type,
            "error_details": error_details,
            "finish_reason": None if finish_reason is None else str(finish_reason.value),
            "retry_count": retry_count,
        }
        return types.Part(
            function_call=types.FunctionCall(
                id=self._get_model_retry_uuid(),
                name=self.adk_handle_model_error.__name__,
                args=args,
            ),
            thought_signature=_SKIP_THOUGHT_SIGNATURE,
        )

    def _get_model_retry_uuid(self) -> str:
        return f"{self.adk_handle_model_error.__name__}_{new_uuid4()}"

    def _get_model_scope_key(self, callback_context: CallbackContext) -> str:
        return resolve_scope_key(self.scope, callback_context.invocation_id)
