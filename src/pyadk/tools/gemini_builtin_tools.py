"""Gemini's built-in tools: Google Search and URL context, run by the model itself.

Each adds its entry to the request's tools (no function declaration, nothing runs
here); a request for a model that is not Gemini is refused with ValueError, since
other providers do not know these tools (``ADK_DISABLE_GEMINI_MODEL_ID_CHECK`` lifts
the check for ids named otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.tools.base_tool import BaseTool
from pyadk.utils.fast_models import set_field
from pyadk.utils.model_names import gemini_check_disabled, is_gemini_model

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext


class _GeminiBuiltInTool(BaseTool):
    """A tool the Gemini model runs: it only adds ``types.Tool(<field>={})``."""

    _field: str
    _label: str

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        raise NotImplementedError(f"{self.name} is run by the model, not called locally.")

    def _add_to(self, llm_request: LlmRequest) -> None:
        if not (is_gemini_model(llm_request.model) or gemini_check_disabled()):
            raise ValueError(
                f"{self._label} tool is not supported for model {llm_request.model}: it is a "
                "Gemini built-in tool (use a gemini-* model, or set "
                "ADK_DISABLE_GEMINI_MODEL_ID_CHECK=1 for a Gemini model named otherwise)."
            )
        tools = llm_request.config.tools
        if tools is None:
            tools = []
            set_field(llm_request.config, "tools", tools)
        tools.append(types.Tool(**{self._field: {}}))


class GoogleSearchTool(_GeminiBuiltInTool):
    """``google_search``: Gemini searches Google and grounds its answer (the grounding
    metadata comes back on the model's events). ``model`` replaces the request's model
    id (as google-adk's option); ``bypass_multi_tools_limit`` is accepted for
    google-adk's signature (pyadk puts no limit on tools beside it)."""

    _field = "google_search"
    _label = "Google search"

    def __init__(self, *, bypass_multi_tools_limit: bool = False, model: str | None = None):
        super().__init__(name="google_search", description="google_search")
        self.bypass_multi_tools_limit = bypass_multi_tools_limit
        self.model = model

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        if self.model is not None:
            set_field(llm_request, "model", self.model)
        self._add_to(llm_request)


class UrlContextTool(_GeminiBuiltInTool):
    """``url_context``: Gemini reads the URLs the conversation names."""

    _field = "url_context"
    _label = "Url context"

    def __init__(self) -> None:
        super().__init__(name="url_context", description="url_context")

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        self._add_to(llm_request)


google_search = GoogleSearchTool()
url_context = UrlContextTool()
