"""Model callbacks screening a live session, where google-adk calls them (its three
"live callback sites"):

1. the user's typed content, before it is sent: ``before_model_callback``;
2. the model's output transcription as it accumulates (the turn's text so far):
   ``after_model_callback``;
3. the user's speech, once the model returns its finished input transcription:
   ``before_model_callback``.

A response a callback returns (plugins' hooks first, then the agent's callbacks) becomes
the agent's answer event, with ``turn_complete``. At site 1 the content is then not
sent. At sites 2 and 3 the model has already heard (or said) it: google-adk restarts the
session to drop the model's remaining output; pyadk keeps the connection and mutes the
rest of the model's turn instead (its content, output transcription and function calls,
until the model's ``turn_complete`` or ``interrupted``), so the blocked text is neither
yielded nor stored as the answer. A function call dropped that way is answered to the
model (not run) with an error, so that the model does not wait for it.

A session has a :class:`LiveScreening` only when a plugin or the agent listens at
``before_model_callback`` or ``after_model_callback``: otherwise the flow's only cost is
one ``is None`` check per site.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events.event import Event
from pyadk.models.llm_response import LlmResponse
from pyadk.utils.callbacks import has_listener, plugins_then_callbacks
from pyadk.utils.fast_models import construct, updated

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.models.base_llm_connection import BaseLlmConnection
    from pyadk.models.llm_request import LlmRequest

BLOCKED_CALL_ERROR = (
    "Not run: a callback replaced the model's turn, so its function calls were dropped."
)
"""The error a function call of a muted turn is answered with (sent to the model only)."""

_MUTED = {"content": None, "output_transcription": None, "grounding_metadata": None}
"""What a muted response loses: what the model says (its turn's end is dropped too)."""


class LiveScreening:
    """The model callbacks of one live session (see the module's docstring)."""

    def __init__(
        self,
        ctx: InvocationContext,
        agent: LlmAgent,
        llm_request: LlmRequest,
        *,
        before: bool,
        after: bool,
    ) -> None:
        self.ctx = ctx
        self.agent = agent
        self.llm_request = llm_request
        self.before = before
        """A plugin or the agent listens at ``before_model_callback`` (sites 1 and 3)."""
        self.after = after
        """A plugin or the agent listens at ``after_model_callback`` (site 2)."""
        self.said = ""
        """The model's output transcription of the turn so far."""
        self.screened = ""
        """The last output transcription text screened (a finished one equal to it is
        not screened again)."""
        self.muted = False
        """A callback replaced the model's turn: the rest of it is dropped."""

    @classmethod
    def of(cls, ctx: InvocationContext, llm_request: LlmRequest) -> LiveScreening | None:
        """The screening of a session of ``ctx.agent``; None when nothing listens."""
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        plugins = ctx.plugin_manager
        before = has_listener(plugins, "before_model_callback", agent.before_model_callback)
        after = has_listener(plugins, "after_model_callback", agent.after_model_callback)
        if not (before or after):
            return None
        return cls(ctx, agent, llm_request, before=before, after=after)

    # -- sites 1 and 3: what the user says -----------------------------------------------
    async def screen_user_content(self, content: types.Content) -> Event | None:
        """Site 1: the before-model callbacks on user content about to be sent; the
        answer event of the response one returns (the content is then not sent)."""
        if not self.before:
            return None
        request = self.llm_request.model_copy(update={"contents": [content]})
        template = self._answer_template()
        response = await plugins_then_callbacks(
            self.ctx.plugin_manager,
            "before_model_callback",
            {"callback_context": self._callback_context(template), "llm_request": request},
            self.agent.before_model_callback,
        )
        return None if response is None else _answer(response, template)

    async def screen_spoken_input(self, llm_response: LlmResponse) -> Event | None:
        """Site 3: a finished input transcription screened as the user's content; on a
        block the model's answer to it is muted."""
        heard = llm_response.input_transcription
        if not self.before or heard is None or not heard.finished or not heard.text:
            return None
        spoken = types.Content(role="user", parts=[types.Part(text=heard.text)])
        blocked = await self.screen_user_content(spoken)
        if blocked is not None:
            self._mute()
        return blocked

    # -- site 2: what the model says -------------------------------------------------------
    async def screen_model_output(self, llm_response: LlmResponse) -> Event | None:
        """Site 2: the after-model callbacks on the model's output transcription so far;
        the answer event of the response one returns (the rest of the turn is muted)."""
        if llm_response.turn_complete or llm_response.interrupted:
            self.said = self.screened = ""
        said = llm_response.output_transcription
        if not self.after or said is None:
            return None
        if said.finished:
            # google-adk screens the chunks only; a finished transcription is screened
            # when its text was not (a model that sends no chunks).
            text = said.text or ""
            if not text or text == self.screened:
                self.said = self.screened = ""
                return None
            finished = True
        elif said.text:
            self.said += said.text
            text = self.said
            finished = False
        else:
            return None
        self.screened = text
        screened = llm_response.model_copy(
            update={"output_transcription": types.Transcription(text=text, finished=finished)}
        )
        template = self._answer_template()
        response = await plugins_then_callbacks(
            self.ctx.plugin_manager,
            "after_model_callback",
            {"callback_context": self._callback_context(template), "llm_response": screened},
            self.agent.after_model_callback,
        )
        if response is None:
            return None
        self._mute()
        return _answer(response, template)

    # -- muting ----------------------------------------------------------------------------
    async def unmuted_part(
        self, llm_response: LlmResponse, connection: BaseLlmConnection | None
    ) -> LlmResponse | None:
        """While muted: what of ``llm_response`` is still passed on (None: nothing).
        The model's content, output transcription and ``turn_complete`` are dropped (its
        function calls answered on ``connection``, unless None, with
        :data:`BLOCKED_CALL_ERROR`); the user's input transcription, usage, errors,
        ``interrupted`` and resumption updates pass. The turn's end (or an interruption)
        ends the muting."""
        if not self.muted:
            return llm_response
        if llm_response.turn_complete or llm_response.interrupted:
            self.muted = False
        content = llm_response.content
        if (
            connection is not None
            and content is not None
            and content.parts
            and any(part.function_call for part in content.parts)
        ):
            await connection.send_content(_refusals(content))
        kept = llm_response.model_copy(update={**_MUTED, "turn_complete": None})
        if (
            kept.interrupted
            or kept.error_code
            or kept.input_transcription is not None
            or kept.usage_metadata is not None
            or kept.live_session_resumption_update is not None
        ):
            return kept
        return None

    def _mute(self) -> None:
        self.muted = True
        self.said = self.screened = ""

    def _answer_template(self) -> Event:
        ctx = self.ctx
        return construct(
            Event, invocation_id=ctx.invocation_id, author=self.agent.name, branch=ctx.branch
        )

    def _callback_context(self, template: Event) -> CallbackContext:
        return CallbackContext(self.ctx, event_actions=template.actions)


def _answer(response: Any, template: Event) -> Event:
    """The agent's answer event of a callback's response (it ends the model's turn)."""
    llm_response = LlmResponse.model_validate(response)
    event = updated(template, llm_response, {"id": Event.new_id(), "timestamp": time.time()})
    event.turn_complete = True
    return event


def _refusals(content: types.Content) -> types.Content:
    """The function responses refusing the calls of ``content``."""
    return types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id=part.function_call.id,
                    name=part.function_call.name,
                    response={"error": BLOCKED_CALL_ERROR},
                )
            )
            for part in content.parts or []
            if part.function_call is not None
        ],
    )
