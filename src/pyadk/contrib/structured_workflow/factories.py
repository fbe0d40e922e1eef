"""Assembling the structured workflow: ``create_structured_workflow_adk_generator`` and
``create_baseline_workflow_adk_generator``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from pyadk import types
from pyadk.agents.loop_agent import LoopAgent
from pyadk.agents.sequential_agent import SequentialAgent
from pyadk.contrib.structured_workflow import llm_agents
from pyadk.contrib.structured_workflow.agents import (
    CodeBasedFinalVerifier,
    CodeBasedRunner,
    CodeBasedTeardownAgent,
    DocstringFetcherAgent,
    SetupAgentCodeBased,
)
from pyadk.contrib.structured_workflow.index import ModuleIndex, load_index
from pyadk.contrib.structured_workflow.sandbox import SandboxLimits
from pyadk.contrib.structured_workflow.tools import DEFAULT_SANDBOX_MODEL
from pyadk.models.base_llm import BaseLlm

Knowledge = Literal["index", "tools"]


class StructuredWorkflowAdk(SequentialAgent):
    """The structured workflow: setup, sanitizer, module selector, docstring fetcher,
    planner, implementation loop, final verifier; teardown as a finally agent."""

    knowledge: Knowledge = "index"
    """How modules are chosen: from ``adk_index.yaml`` or by searching the source."""
    max_iterations: int = Field(default=3, ge=1)


def create_structured_adk_agent(
    model: BaseLlm | str = "",
    *,
    knowledge: Knowledge = "index",
    max_iterations: int = 3,
    sandbox_model: str | None = DEFAULT_SANDBOX_MODEL,
    run_timeout: float = 120.0,
    output_dir: str | Path | None = None,
    workspace_root: str | Path | None = None,
    keep_workspace: bool = False,
    temperature: float | None = None,
    seed: int | None = None,
    max_output_tokens: int | None = None,
    force_tool_calls: bool = True,
    index: ModuleIndex | None = None,
    name: str = "StructuredWorkflowAdk",
) -> StructuredWorkflowAdk:
    """The whole pipeline.

    Args:
        model: The model of the LLM steps (empty: the default model).
        knowledge: ``index`` (pick from adk_index.yaml) or ``tools`` (grep/find).
        max_iterations: Rounds of the implementation loop (candidate, run, analysis).
        sandbox_model: Model spec the generated agent's test runs use (``local``,
            ``echo``, ``module:factory``; None keeps the models it names).
        run_timeout: Seconds one sandboxed test run may take.
        output_dir: Where the final verifier writes ``agent.py`` (state ``output_dir``
            overrides it; neither: no file, the code is in the answer and in state).
        workspace_root: Where the temporary workspaces are created.
        keep_workspace: Do not remove the workspace at the end (debugging).
        temperature, seed: Sampling settings for every model call (reproducibility).
        max_output_tokens: Output limit of every model call (None: the model's own).
        force_tool_calls: Make the selector and the planner call their saving tools
            (tool_config ANY) instead of hoping they do; the step ends once they did.
        index: A module index other than the packaged ``adk_index.yaml``.
        name: The pipeline agent's name.
    """
    if max_iterations < 1:
        raise ValueError("max_iterations must be at least 1.")
    config = None
    if temperature is not None or seed is not None or max_output_tokens is not None:
        config = types.GenerateContentConfig(
            temperature=temperature, seed=seed, max_output_tokens=max_output_tokens
        )
    if knowledge == "index":
        index = index or load_index()
        selector = llm_agents.index_module_selector(model, config, index, force_tool_calls)
    elif knowledge == "tools":
        selector = llm_agents.tool_module_selector(model, config, force_tool_calls)
    else:
        raise ValueError(f"knowledge must be 'index' or 'tools', not {knowledge!r}.")
    loop = LoopAgent(
        name="ImplementationLoop",
        description="Writes, runs and checks the code until the check passes.",
        max_iterations=max_iterations,
        sub_agents=[
            llm_agents.candidate_creator(model, config),
            CodeBasedRunner(
                name="CodeBasedRunner",
                description="Extracts, saves and runs the candidate code in a sandbox.",
                sandbox_model=sandbox_model,
                limits=SandboxLimits(timeout=run_timeout),
            ),
            llm_agents.run_analysis(model, config),
        ],
    )
    return StructuredWorkflowAdk(
        name=name,
        description="Writes a pyadk agent for a request: plan, implement, run, verify.",
        knowledge=knowledge,
        max_iterations=max_iterations,
        sub_agents=[
            SetupAgentCodeBased(
                name="SetupAgentCodeBased",
                description="Creates the workspace and records the request.",
                workspace_root=str(workspace_root) if workspace_root else None,
                copy_adk_source=knowledge == "tools",
                sandbox_model=sandbox_model,
            ),
            llm_agents.prompt_sanitizer(model, config),
            selector,
            DocstringFetcherAgent(
                name="DocstringFetcherAgent",
                description="Fetches the docstrings of the selected modules.",
                index=index if knowledge == "index" else None,
            ),
            llm_agents.planner(model, config, force_tool_calls),
            loop,
            CodeBasedFinalVerifier(
                name="CodeBasedFinalVerifier",
                description="Writes the solution file and the final answer.",
                output_dir=str(output_dir) if output_dir else None,
            ),
        ],
        finally_agents=[
            CodeBasedTeardownAgent(
                name="CodeBasedTeardownAgent",
                description="Removes the workspace, also after failures.",
                keep_workspace=keep_workspace,
            )
        ],
    )


def create_structured_workflow_adk_generator(
    model: BaseLlm | str = "", **options: object
) -> StructuredWorkflowAdk:
    """The optimized generator: index-based knowledge retrieval (see
    :func:`create_structured_adk_agent` for the options)."""
    return create_structured_adk_agent(model, knowledge="index", **options)  # type: ignore[arg-type]


def create_baseline_workflow_adk_generator(
    model: BaseLlm | str = "", **options: object
) -> StructuredWorkflowAdk:
    """The baseline generator: the same pipeline with tool-based retrieval (grep/find
    over a copy of pyadk's source in the workspace)."""
    return create_structured_adk_agent(model, knowledge="tools", **options)  # type: ignore[arg-type]
