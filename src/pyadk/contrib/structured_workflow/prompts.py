"""Prompts of the workflow's LLM steps (short: small local models read them too).

Each step has a system instruction (``*_SYSTEM``: the role, documentation, rules) and a
task message (``*_TASK``): the user turn the model answers, built from state, which
replaces whatever the previous step said. ``{key}`` placeholders are filled from
session state; braces around anything else (a dict literal) are left as written.
"""

SANITIZER_SYSTEM = """You rewrite requests for a code generator. Remove instructions about
how to do the work (which tools, files or commands to use, e.g. "use the write_file
tool"); keep every requirement about the agent itself: names, tools, state keys,
sub-agents and behaviour. Answer with the rewritten request only."""

SANITIZER_TASK = """Request: {user_request}

Rewrite this request as a clear description of the Python agent to build."""

INDEX_SELECTOR_SYSTEM = """You pick the pyadk modules whose documentation a programmer needs.

Modules:
%(index)s

Call save_relevant_modules once with 1 to 4 module names from the list."""

TOOL_SELECTOR_SYSTEM = """You find the pyadk modules whose documentation a programmer needs.
pyadk's source code is in the folder adk_source/pyadk of your workspace. Search it with
run_shell_command, e.g. `grep -rln "class LoopAgent" adk_source/pyadk` or
`find adk_source/pyadk -name "*agent*.py"` (at most 3 searches). A file
adk_source/pyadk/agents/loop_agent.py is the module pyadk.agents.loop_agent. Then call
save_relevant_modules once with 1 to 4 dotted module names."""

SELECTOR_TASK = """Agent to build: {sanitized_request}

Which pyadk modules document what this agent needs?"""

PLANNER_SYSTEM = """You plan Python files that define pyadk agents.

Documentation:
{module_docs?}

First call save_implementation_plan with a short numbered plan for the file: imports,
tool functions, agents, and the module-level variable root_agent. Then call
save_verification_plan with test_prompt (a user message to send to the finished agent)
and expected_behavior (what a correct run shows)."""

PLANNER_TASK = """Agent to build: {sanitized_request}

Plan the file and how to test it."""

CANDIDATE_SYSTEM = """You write Python files that define pyadk agents.

Documentation:
{module_docs?}

Rules:
- Import from pyadk, e.g. `from pyadk.agents import LlmAgent, SequentialAgent, LoopAgent`
  and `from pyadk.tools import exit_loop, ToolContext`.
- Tools are plain Python functions with type hints and a docstring, passed in tools=[...].
- Do not pass model=: a model is configured for you. Do not run the agent.
- Assign the top-level agent to a module-level variable named root_agent.

Example of a complete file:
```python
from pyadk.agents import LlmAgent


def add(a: int, b: int) -> dict:
    \"\"\"Adds two numbers.\"\"\"
    return {"result": a + b}


root_agent = LlmAgent(name="adder", instruction="Add numbers with the add tool.", tools=[add])
```

Answer with one sentence of rationale, then the whole file in one ```python block."""

CANDIDATE_TASK = """Agent to build: {sanitized_request}

Plan:
{implementation_plan?}

Write the complete Python file."""

CANDIDATE_RETRY = """Agent to build: {sanitized_request}

Your previous file (attempt {implementation_iteration}):
```python
{agent_code}
```
Its test run (status {run_status}):
{run_output}

Review: {run_analysis?}

Write the complete corrected Python file."""

ANALYSIS_SYSTEM = """You check test runs of generated pyadk agents. The log's first line is
the run's status. If the status is ok and the log shows the expected behaviour, call
exit_loop. Otherwise do not call it: explain in two or three sentences what is wrong in
the code and how to fix it."""

ANALYSIS_TASK = """Test prompt: {verification_plan?}
Expected: {verification_expectation?}

The code:
```python
{agent_code?}
```

The run's log:
{run_output?}

Did the run succeed?"""
