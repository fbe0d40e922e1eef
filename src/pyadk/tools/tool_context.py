"""ToolContext: the context a tool call runs in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk.agents.callback_context import CallbackContext
from pyadk.events.event_actions import EventActions
from pyadk.events.tool_confirmation import ToolConfirmation

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.auth.auth_credential import AuthCredential
    from pyadk.auth.auth_tool import AuthConfig


class ToolContext(CallbackContext):
    """Context of one tool call: its ``function_call_id``, ``actions`` and services.

    Tools steer the run through ``actions``: ``escalate``, ``transfer_to_agent``,
    ``skip_summarization``, or by writing ``state``. A call that was approved carries
    the person's answer in ``tool_confirmation``.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        function_call_id: str | None = None,
        event_actions: EventActions | None = None,
    ) -> None:
        super().__init__(invocation_context, event_actions=event_actions)
        self.function_call_id = function_call_id
        self.concurrent = False
        """True when other calls of the same model response run at the same time."""
        self.tool_confirmation: ToolConfirmation | None = None
        """The approval this call runs with (None: it was not asked for one)."""
        self._node_ctx: Any = None
        """The node context of the ToolNode running this call (None under an agent)."""

    def report_progress(self, data: str | dict[str, Any]) -> bool:
        """Sends ``data`` (a string or a JSON dict) to the client while this call runs.

        The report becomes a partial event of the agent (never stored, never shown to
        a model) that ``Runner.run_async`` (or ``Runner.run_live``) yields at once; its
        ``custom_metadata`` holds ``{"tool_progress": {"function_call_id", "tool_name",
        "data"}}`` (see :class:`pyadk.tools.tool_progress.ToolProgress`). Only a tool
        created with ``streams_progress=True`` streams: elsewhere (other tools, a live
        streaming tool after its call was answered, a call resumed after an
        interruption, a tool run outside an agent's step) the report is dropped.
        Returns whether it was sent; TypeError if ``data`` is not JSON.
        """
        from pyadk.tools.tool_progress import report

        return report(self, data)

    @property
    def invocation_context(self) -> InvocationContext:
        """The invocation this tool call belongs to."""
        return self._invocation_context

    def request_credential(self, auth_config: AuthConfig) -> None:
        """Asks the client for the end user's credential (``requested_auth_configs``).

        The framework then ends the agent's step with an ``adk_request_credential``
        call (an OAuth2 scheme's request carries an authorization URI); once the client
        answers, this call runs again and :meth:`get_auth_response` returns the
        credential. The request holds no secret the developer configured.
        """
        from pyadk.auth.auth_handler import AuthHandler

        if not self.function_call_id:
            raise ValueError(
                "request_credential needs a function_call_id: it is for tool calls (a "
                "callback can use load_credential / save_credential)."
            )
        request = AuthHandler(auth_config).generate_auth_request()
        self._event_actions.requested_auth_configs[self.function_call_id] = request

    def get_auth_response(self, auth_config: AuthConfig) -> AuthCredential | None:
        """The credential the client sent for ``auth_config`` in this turn (None before
        it came); an OAuth2 authorization code is first traded for a token, a blocking
        call (``CredentialManager.get_auth_credential`` does it asynchronously)."""
        from pyadk.auth.auth_handler import AuthHandler

        # The session's live state: the answer (and the token it buys) stay out of events.
        return AuthHandler(auth_config).get_auth_response(self._invocation_context.session.state)

    def request_confirmation(self, *, hint: str | None = None, payload: Any = None) -> None:
        """Asks the client to approve this call (``requested_tool_confirmations``).

        The framework then ends the agent's step with an ``adk_request_confirmation``
        call; once the client approves, this tool runs again with
        ``tool_confirmation`` set (a rejected call is not run again).
        """
        if not self.function_call_id:
            raise ValueError("request_confirmation needs a function_call_id.")
        self._event_actions.requested_tool_confirmations[self.function_call_id] = ToolConfirmation(
            hint=hint or "", payload=payload
        )

    async def run_node(
        self,
        node: Any,
        node_input: Any = None,
        *,
        run_id: str | None = None,
        use_sub_branch: bool = False,
        override_branch: str | None = None,
    ) -> Any:
        """Runs ``node`` (a node, function, agent, workflow or tool) now, for this call,
        and returns its output (None when it has none), as google-adk's
        ``Context.run_node``.

        In a workflow's ``ToolNode`` the node runs as a dynamic node of that node (see
        ``Context.run_node``). Under an agent it runs with the agent's invocation, at
        path ``<agent>@1/<node>@<run id>`` (``run_id`` defaults to this call's id, then
        ``<id>-2``, ... for more runs of the node in the call), in
        the agent's branch (a sub-branch ``<node>@<run id>`` for an agent or workflow,
        or with ``use_sub_branch``; ``override_branch`` replaces the base); its events
        are stored in the session as they come. A node that fails raises
        :class:`pyadk.workflow.DynamicNodeFailError` (its ``error``: the node's own
        exception); under an agent, a node that waits for the client raises
        :class:`pyadk.workflow.NodePausedInToolError` (an agent's tool call cannot
        pause on it).
        """
        from pyadk.workflow._tool_runs import run_node_from_tool

        return await run_node_from_tool(
            self,
            node,
            node_input,
            run_id=run_id,
            use_sub_branch=use_sub_branch,
            override_branch=override_branch,
        )
