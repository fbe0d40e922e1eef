"""The structured coding workflow: an agent that writes pyadk agents.

``create_structured_workflow_adk_generator(model)`` builds ``StructuredWorkflowAdk``: a
SequentialAgent of code-based steps (setup, docstring fetcher, sandboxed runner, final
verifier; teardown as a finally agent) and LLM steps (sanitizer, module selector,
planner, candidate creator, run analysis) that pass data through session state.
``create_baseline_workflow_adk_generator`` is the same with tool-based (grep/find)
module search. See docs/structured-workflow.md.
"""

from pyadk.contrib.structured_workflow import schemas
from pyadk.contrib.structured_workflow.agents import (
    CodeBasedFinalVerifier,
    CodeBasedRunner,
    CodeBasedTeardownAgent,
    DocstringFetcherAgent,
    SetupAgentCodeBased,
)
from pyadk.contrib.structured_workflow.code_extraction import extract_code
from pyadk.contrib.structured_workflow.factories import (
    StructuredWorkflowAdk,
    create_baseline_workflow_adk_generator,
    create_structured_adk_agent,
    create_structured_workflow_adk_generator,
)
from pyadk.contrib.structured_workflow.index import ModuleIndex, load_index
from pyadk.contrib.structured_workflow.sandbox import SandboxLimits
from pyadk.contrib.structured_workflow.tools import (
    get_module_help,
    run_adk_agent,
    run_agent_file,
    run_shell_command,
)

__all__ = [
    "CodeBasedFinalVerifier",
    "CodeBasedRunner",
    "CodeBasedTeardownAgent",
    "DocstringFetcherAgent",
    "ModuleIndex",
    "SandboxLimits",
    "SetupAgentCodeBased",
    "StructuredWorkflowAdk",
    "create_baseline_workflow_adk_generator",
    "create_structured_adk_agent",
    "create_structured_workflow_adk_generator",
    "extract_code",
    "get_module_help",
    "load_index",
    "run_adk_agent",
    "run_agent_file",
    "run_shell_command",
    "schemas",
]
