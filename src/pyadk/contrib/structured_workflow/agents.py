"""The code-based agents of the structured workflow (deterministic steps, no model)."""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from pydantic import Field

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.contrib.structured_workflow import schemas
from pyadk.contrib.structured_workflow.code_extraction import extract_code
from pyadk.contrib.structured_workflow.index import ModuleIndex
from pyadk.contrib.structured_workflow.module_help import module_help
from pyadk.contrib.structured_workflow.sandbox import SandboxLimits, pyadk_path
from pyadk.contrib.structured_workflow.tools import (
    DEFAULT_SANDBOX_MODEL,
    SANDBOX_MODEL_KEY,
    run_agent_file,
)
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.events.outcome import OutcomeStatus

logger = logging.getLogger(__name__)

WORKSPACE_MARKER = ".pyadk_workspace"
"""A file the setup agent leaves in each workspace; teardown only removes such folders."""
ADK_SOURCE_DIR = "adk_source"
CODE_FILE = "agent.py"
RUN_OUTPUT_CHARS = 6000


def state_event(
    agent: BaseAgent,
    ctx: InvocationContext,
    delta: dict[str, Any],
    text: str | None = None,
) -> Event:
    """An event of ``agent`` carrying a state delta and, optionally, a text reply."""
    content = types.ModelContent(text) if text is not None else None
    return Event(
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=content,
        actions=EventActions(state_delta=delta),
    )


def _request_text(ctx: InvocationContext) -> str:
    content = ctx.user_content
    parts = content.parts if content is not None and content.parts else []
    return "\n".join(p.text for p in parts if p.text).strip()


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, keeping its start and its end."""
    if len(text) <= limit:
        return text
    half = (limit - 40) // 2  # room for the marker line
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters cut ...]\n{text[-half:]}"


class SetupAgentCodeBased(BaseAgent):
    """Creates the task's workspace (a new temporary folder) and records the request.

    State: ``workspace_dir``, ``user_request`` (and ``sanitized_request``, until the
    sanitizer rewrites it), ``sandbox_model``; resets the implementation keys so a
    second request in the same session starts clean.
    """

    workspace_root: str | None = None
    """Folder the workspaces are created in (default: the system temp folder)."""
    copy_adk_source: bool = False
    """Copy pyadk's source to ``adk_source/pyadk`` (for tool-based module search)."""
    sandbox_model: str | None = DEFAULT_SANDBOX_MODEL
    """The model spec generated agents run with (stored for the run_adk_agent tool)."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        request = _request_text(ctx)
        if not request:
            raise ValueError(f"{self.name}: the user message has no text (no request).")
        root = self.workspace_root or ctx.session.state.get("workspace_root")
        if root:
            Path(root).mkdir(parents=True, exist_ok=True)
        workspace = Path(tempfile.mkdtemp(prefix="task_", dir=root)).resolve()
        (workspace / WORKSPACE_MARKER).write_text(ctx.invocation_id, encoding="utf-8")
        if self.copy_adk_source:
            await asyncio.to_thread(_copy_adk_source, workspace / ADK_SOURCE_DIR)
        setup = schemas.SetupContext(workspace_dir=str(workspace), user_request=request)
        yield state_event(
            self,
            ctx,
            {
                **setup.model_dump(),
                schemas.SANITIZED_REQUEST: request,
                SANDBOX_MODEL_KEY: self.sandbox_model,
                schemas.RELEVANT_MODULES: [],
                schemas.MODULE_DOCS: "",
                schemas.IMPLEMENTATION_PLAN: "",
                schemas.VERIFICATION_PLAN: "",
                schemas.VERIFICATION_EXPECTATION: "",
                schemas.CANDIDATE_RESPONSE: "",
                schemas.AGENT_CODE: "",
                schemas.LAST_WORKING_CODE: "",
                schemas.RUN_OUTPUT: "",
                schemas.RUN_STATUS: "",
                schemas.RUN_ANALYSIS: "",
                schemas.ITERATION: 0,
                schemas.VERIFIED: False,
                schemas.WORKSPACE_REMOVED: False,
            },
        )


def _copy_adk_source(target: Path) -> None:
    source = Path(pyadk_path()) / "pyadk"
    shutil.copytree(
        source,
        target / "pyadk",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.gguf*"),
    )


class DocstringFetcherAgent(BaseAgent):
    """Fetches the docstrings and signatures of the modules the selector picked.

    Reads ``relevant_modules`` (a list, or a text naming modules), keeps the names the
    index knows (or, without an index, any importable ``pyadk`` module), falls back to
    the index defaults, and writes ``module_docs`` within ``max_chars``.
    """

    index: ModuleIndex | None = None
    max_modules: int = Field(default=4, ge=1)
    max_chars: int = Field(default=5000, ge=500)
    """Characters of documentation in all (small models copy from long docs)."""
    default_modules: list[str] = Field(
        default_factory=lambda: ["pyadk.agents.llm_agent", "pyadk.tools.function_tool"]
    )

    def choose(self, requested: Any) -> list[str]:
        """The modules to document for the selector's answer ``requested``."""
        if isinstance(requested, str):
            requested = requested.replace(",", " ").split()
        elif isinstance(requested, dict):
            requested = requested.get("modules", [])
        names = [str(n) for n in requested or []]
        if self.index is not None:
            chosen = self.index.select(names, self.max_modules)
        else:
            chosen = []
            for name in names:
                clean = name.strip().strip("`'\" ")
                if clean.startswith("pyadk") and clean not in chosen:
                    chosen.append(clean)
        if not chosen:
            defaults = self.index.defaults if self.index is not None else []
            chosen = list(defaults or self.default_modules)
        return chosen[: self.max_modules]

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        chosen = self.choose(ctx.session.state.get(schemas.RELEVANT_MODULES))
        budget = self.max_chars // max(1, len(chosen))
        sections: list[str] = []
        fetched: list[str] = []
        for name in chosen:
            try:
                sections.append(await asyncio.to_thread(module_help, name, budget))
                fetched.append(name)
            except Exception as error:  # an unimportable name: skip it, keep the others
                logger.info("No help for module %r: %s", name, error)
        if not fetched:
            budget = self.max_chars // max(1, len(self.default_modules))
            for name in self.default_modules:
                sections.append(await asyncio.to_thread(module_help, name, budget))
                fetched.append(name)
        yield state_event(
            self,
            ctx,
            {schemas.RELEVANT_MODULES: fetched, schemas.MODULE_DOCS: "\n\n".join(sections)},
            text=f"Fetched the documentation of {', '.join(fetched)}.",
        )


class CodeBasedRunner(BaseAgent):
    """Extracts the code from ``candidate_response``, saves it, and runs it in the sandbox.

    State: ``agent_code``, ``run_output`` (the run's log), ``run_status`` (ok, error,
    timeout, no_code or syntax_error), ``implementation_iteration``, and
    ``last_working_code`` when the run completed. The log is also
    the text of its event, so the next agent sees it in its history.
    """

    sandbox_model: str | None = DEFAULT_SANDBOX_MODEL
    """The model spec the generated agent runs with (None: the models it names)."""
    limits: SandboxLimits = Field(default_factory=SandboxLimits)
    max_llm_calls: int = Field(default=20, ge=1)
    """Model calls the generated agent may make in its test run."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = ctx.session.state
        iteration = int(state.get(schemas.ITERATION) or 0) + 1
        delta: dict[str, Any] = {schemas.ITERATION: iteration}
        code = extract_code(state.get(schemas.CANDIDATE_RESPONSE))
        if code is None:
            status, log = (
                "no_code",
                (
                    "status: no_code\nThe answer has no Python code block. Answer with the whole "
                    "file in one ```python block."
                ),
            )
        else:
            delta[schemas.AGENT_CODE] = code
            status, log = await self._run(ctx, code)
            if status == "ok":
                delta[schemas.LAST_WORKING_CODE] = code
        log = clip(log, RUN_OUTPUT_CHARS)
        delta.update({schemas.RUN_OUTPUT: log, schemas.RUN_STATUS: status})
        yield state_event(self, ctx, delta, text=f"Test run {iteration}:\n{log}")

    async def _run(self, ctx: InvocationContext, code: str) -> tuple[str, str]:
        try:
            compile(code, CODE_FILE, "exec")
        except SyntaxError as error:
            return "syntax_error", f"status: syntax_error\nSyntaxError: {error}"
        state = ctx.session.state
        if not state.get(schemas.WORKSPACE_DIR):
            raise ValueError(f"{self.name}: no workspace_dir in state (run the setup agent first).")
        workspace = Path(str(state[schemas.WORKSPACE_DIR]))
        path = workspace / CODE_FILE
        await asyncio.to_thread(path.write_text, code, encoding="utf-8")
        prompt = str(
            state.get(schemas.VERIFICATION_PLAN)
            or state.get(schemas.SANITIZED_REQUEST)
            or state.get(schemas.USER_REQUEST)
            or "Hello"
        )
        result = await run_agent_file(
            path,
            prompt,
            model=self.sandbox_model,
            limits=self.limits,
            cwd=workspace,
            max_llm_calls=self.max_llm_calls,
        )
        return result.status, result.as_log()


class CodeBasedFinalVerifier(BaseAgent):
    """Writes the solution to ``<output_dir>/<solution_filename>`` and answers.

    The solution is ``agent_code`` when the last run was accepted; otherwise the latest
    code whose run completed (``last_working_code``), else the last attempt.

    ``output_dir`` comes from state (``output_dir``) or this agent's field; without
    either, nothing is written and the answer carries the code. ``verified`` is True
    when the analysis agent accepted the last run (its outcome is ``escalated``: it
    called exit_loop).
    """

    output_dir: str | None = None
    solution_filename: str = "agent.py"
    analysis_agent_name: str = "RunAnalysisAgent"

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = ctx.session.state
        code = str(state.get(schemas.AGENT_CODE) or "")
        iterations = int(state.get(schemas.ITERATION) or 0)
        analysis = ctx.outcome_in_this_invocation(self.analysis_agent_name)
        accepted = analysis is not None and analysis.status is OutcomeStatus.ESCALATED
        fallback = str(state.get(schemas.LAST_WORKING_CODE) or "")
        if not accepted and fallback and fallback != code:
            code = fallback
        verified = bool(code) and accepted
        delta: dict[str, Any] = {schemas.VERIFIED: verified}
        if not code:
            text = f"No solution: no code was produced in {iterations} iteration(s)."
            yield state_event(self, ctx, delta, text=text)
            return
        directory = state.get(schemas.OUTPUT_DIR) or self.output_dir
        where = "not written (no output_dir)"
        if directory:
            path = Path(str(directory)).resolve() / self.solution_filename
            path.parent.mkdir(parents=True, exist_ok=True)
            await asyncio.to_thread(path.write_text, code, encoding="utf-8")
            delta[schemas.SOLUTION_PATH] = str(path)
            where = f"written to {path}"
        check = (
            "verified by its test run"
            if verified
            else f"NOT verified (last run: {state.get(schemas.RUN_STATUS) or 'none'})"
        )
        if code == fallback and not verified and code != state.get(schemas.AGENT_CODE):
            check += "; this is the latest code whose test run completed"
        text = (
            f"Solution {where}; {check} after {iterations} iteration(s).\n\n"
            f"```python\n{code.rstrip()}\n```"
        )
        yield state_event(self, ctx, delta, text=text)


class CodeBasedTeardownAgent(BaseAgent):
    """Removes the workspace the setup agent created (run it as a finally agent).

    Only folders holding the setup agent's marker file are removed.
    """

    keep_workspace: bool = False
    """Leave the workspace in place (for debugging)."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        value = ctx.session.state.get(schemas.WORKSPACE_DIR)
        if not value or self.keep_workspace:
            return
        workspace = Path(str(value))
        removed = False
        if (workspace / WORKSPACE_MARKER).is_file():
            await asyncio.to_thread(shutil.rmtree, workspace, True)
            removed = not workspace.exists()
        elif workspace.exists():
            logger.warning("Not removing %s: it has no %s marker", workspace, WORKSPACE_MARKER)
        yield state_event(self, ctx, {schemas.WORKSPACE_REMOVED: removed})
