"""The LLM agents of the structured workflow, and the guards they share.

The LLM steps have no ``description``: it would only add a line to each prompt (small
models tend to repeat it), and no step transfers to another.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pyadk import types
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.contrib.structured_workflow import prompts, schemas
from pyadk.contrib.structured_workflow.index import ModuleIndex
from pyadk.contrib.structured_workflow.tools import (
    get_module_help,
    run_shell_command,
    save_implementation_plan,
    save_relevant_modules,
    save_verification_plan,
)
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.exit_loop_tool import exit_loop
from pyadk.tools.tool_context import ToolContext
from pyadk.utils.instructions_utils import inject_session_state

ModelSpec = BaseLlm | str


_NOT_DONE = frozenset({"rejected", "error", "not_found"})


def _succeeded_tools(llm_request: LlmRequest) -> set[str]:
    """Tools of the current step whose latest result was not a rejection or an error."""
    done: set[str] = set()
    for content in llm_request.contents:
        for part in content.parts or []:
            response = part.function_response
            if response is None or not response.name:
                continue
            status = (response.response or {}).get("status")
            if status in _NOT_DONE:
                done.discard(response.name)
            else:
                done.add(response.name)
    return done


class StepDriver:
    """Steers one tool-using step (a before_model_callback, reset before each run).

    - At most ``limit`` model calls; past it the step ends with a short note.
    - When every tool of ``required`` has succeeded, the step ends (``done``) without
      another model call.
    - With ``force``, calls past the first ``free_calls`` must be a call (tool_config
      ``ANY``) of the next required tool; within ``free_calls``, of any tool. Small
      models otherwise tend to answer in text instead of calling the tool.
    """

    def __init__(
        self,
        limit: int,
        required: tuple[str, ...] = (),
        force: bool = False,
        free_calls: int = 0,
    ) -> None:
        self.limit = limit
        self.required = required
        self.force = force
        self.free_calls = free_calls
        self._counts: dict[tuple[str, str], int] = {}

    def reset(self, callback_context: CallbackContext) -> None:
        """before_agent_callback: a new run of the agent starts counting from zero."""
        self._counts[(callback_context.invocation_id, callback_context.agent_name)] = 0

    def check(self, callback_context: CallbackContext, llm_request: LlmRequest) -> Any:
        """before_model_callback: ends the step, or shapes the request's tool_config."""
        done = _succeeded_tools(llm_request)
        pending = [name for name in self.required if name not in done]
        if self.required and not pending:
            return LlmResponse(content=types.ModelContent("done"))
        key = (callback_context.invocation_id, callback_context.agent_name)
        self._counts[key] = self._counts.get(key, 0) + 1
        if self._counts[key] > self.limit:
            return LlmResponse(
                content=types.ModelContent(f"(stopped: {self.limit} model calls for this step)")
            )
        if self.force and pending:
            allowed = None if self._counts[key] <= self.free_calls else [pending[0]]
            llm_request.config.tool_config = types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(
                    mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=allowed
                )
            )
        return None


def _driven(agent_kwargs: dict[str, Any], task: TaskMessage, driver: StepDriver) -> dict[str, Any]:
    return {
        **agent_kwargs,
        "before_agent_callback": driver.reset,
        "before_model_callback": [task, driver.check],
    }


def guard_exit_loop(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
    """before_tool_callback: refuses exit_loop while the last test run did not succeed."""
    if tool.name != "exit_loop":
        return None
    status = tool_context.state.get(schemas.RUN_STATUS)
    if status == "ok":
        return None
    return {
        "status": "rejected",
        "message": f"The last test run did not succeed (status {status or 'none'}): "
        "explain what to fix instead.",
    }


_WORD = re.compile(r"[a-z0-9_]{4,}")


def keeps_the_request(original: str, rewritten: str, min_overlap: float = 0.3) -> bool:
    """True when ``rewritten`` still carries ``original``'s content words (a share of at
    least ``min_overlap``), so a rewrite that lost the request can be caught."""
    words = set(_WORD.findall(original.lower()))
    if not words:
        return bool(rewritten.strip())
    kept = words & set(_WORD.findall(rewritten.lower()))
    return len(kept) / len(words) >= min_overlap


def restore_lost_request(callback_context: CallbackContext) -> None:
    """after_agent_callback of the sanitizer: a rewrite that dropped the request's content
    (a small model may answer with something else) is replaced by the request itself."""
    state = callback_context.state
    original = str(state.get(schemas.USER_REQUEST) or "")
    rewritten = str(state.get(schemas.SANITIZED_REQUEST) or "")
    if original and not keeps_the_request(original, rewritten):
        state[schemas.SANITIZED_REQUEST] = original


def templated(template: str) -> Callable[[ReadonlyContext], Any]:
    """An instruction provider filling ``template`` from state (like a string instruction)."""

    async def provider(ctx: ReadonlyContext) -> str:
        return await inject_session_state(template, ctx)

    return provider


def _is_tool_turn(content: types.Content) -> bool:
    return any(p.function_call or p.function_response for p in content.parts or [])


class TaskMessage:
    """A before_model_callback giving the step its own user turn, built from state.

    The request keeps only the step's own tool calls and results; what the previous
    step said (its "For context" message) is replaced by the task text. The first
    template applies; with ``retry``, the second one does once ``when_key`` is set.
    """

    def __init__(self, template: str, retry: str | None = None, when_key: str = "") -> None:
        self.template = template
        self.retry = retry
        self.when_key = when_key

    async def __call__(self, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        template = self.template
        if self.retry is not None and callback_context.state.get(self.when_key):
            template = self.retry
        text = await inject_session_state(template, callback_context)
        own = [c for c in llm_request.contents if _is_tool_turn(c)]
        llm_request.contents = [types.UserContent(text), *own]


def _common(model: ModelSpec, config: types.GenerateContentConfig | None) -> dict[str, Any]:
    return {"model": model, "generate_content_config": config, "include_contents": "none"}


def prompt_sanitizer(model: ModelSpec, config: types.GenerateContentConfig | None) -> LlmAgent:
    """Rewrites the request as a goal (``sanitized_request``)."""
    return LlmAgent(
        name="PromptSanitizerAgent",
        instruction=templated(prompts.SANITIZER_SYSTEM),
        output_key=schemas.SANITIZED_REQUEST,
        before_model_callback=TaskMessage(prompts.SANITIZER_TASK),
        after_agent_callback=restore_lost_request,
        **_common(model, config),
    )


def index_module_selector(
    model: ModelSpec,
    config: types.GenerateContentConfig | None,
    index: ModuleIndex,
    force: bool = True,
) -> LlmAgent:
    """Picks modules from the index (``relevant_modules``)."""
    instruction = prompts.INDEX_SELECTOR_SYSTEM % {"index": index.as_text()}
    driver = StepDriver(3, ("save_relevant_modules",), force)
    return LlmAgent(
        name="ModuleSelectorAgent",
        instruction=templated(instruction),
        tools=[save_relevant_modules],
        **_driven(_common(model, config), TaskMessage(prompts.SELECTOR_TASK), driver),
    )


def tool_module_selector(
    model: ModelSpec, config: types.GenerateContentConfig | None, force: bool = True
) -> LlmAgent:
    """Finds modules by searching pyadk's source with grep/find (the baseline)."""
    driver = StepDriver(6, ("save_relevant_modules",), force, free_calls=4)
    return LlmAgent(
        name="ModuleSelectorAgent",
        instruction=templated(prompts.TOOL_SELECTOR_SYSTEM),
        tools=[run_shell_command, get_module_help, save_relevant_modules],
        **_driven(_common(model, config), TaskMessage(prompts.SELECTOR_TASK), driver),
    )


def planner(
    model: ModelSpec, config: types.GenerateContentConfig | None, force: bool = True
) -> LlmAgent:
    """Saves ``implementation_plan`` and ``verification_plan`` with its tools."""
    driver = StepDriver(4, ("save_implementation_plan", "save_verification_plan"), force)
    return LlmAgent(
        name="Planner",
        instruction=templated(prompts.PLANNER_SYSTEM),
        tools=[save_implementation_plan, save_verification_plan],
        **_driven(_common(model, config), TaskMessage(prompts.PLANNER_TASK), driver),
    )


def candidate_creator(model: ModelSpec, config: types.GenerateContentConfig | None) -> LlmAgent:
    """Writes the code (``candidate_response``); after a failed run, it gets the previous
    code, its run and the analysis."""
    task = TaskMessage(prompts.CANDIDATE_TASK, prompts.CANDIDATE_RETRY, schemas.RUN_OUTPUT)
    return LlmAgent(
        name="CandidateCreator",
        instruction=templated(prompts.CANDIDATE_SYSTEM),
        output_key=schemas.CANDIDATE_RESPONSE,
        before_model_callback=task,
        **_common(model, config),
    )


def run_analysis(model: ModelSpec, config: types.GenerateContentConfig | None) -> LlmAgent:
    """Accepts the run (exit_loop) or explains what to fix (``run_analysis``)."""
    return LlmAgent(
        name="RunAnalysisAgent",
        instruction=templated(prompts.ANALYSIS_SYSTEM),
        tools=[exit_loop],
        output_key=schemas.RUN_ANALYSIS,
        before_tool_callback=guard_exit_loop,
        **_driven(_common(model, config), TaskMessage(prompts.ANALYSIS_TASK), StepDriver(3)),
    )
