"""State keys and the typed records the structured workflow passes around."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# -- session state keys (the seed's names, plus what the pipeline needs) ------------------
WORKSPACE_DIR = "workspace_dir"
"""The task's temporary workspace (created by setup, removed by teardown)."""
USER_REQUEST = "user_request"
"""The user's request, as typed."""
SANITIZED_REQUEST = "sanitized_request"
"""The request rewritten as a goal, without tool-calling instructions."""
RELEVANT_MODULES = "relevant_modules"
"""pyadk modules chosen by the module selector (a list of dotted names)."""
MODULE_DOCS = "module_docs"
"""Docstrings and signatures of the relevant modules (one text)."""
IMPLEMENTATION_PLAN = "implementation_plan"
VERIFICATION_PLAN = "verification_plan"
"""The test prompt the generated agent is run with."""
VERIFICATION_EXPECTATION = "verification_expectation"
"""What a successful run of the test prompt should show."""
CANDIDATE_RESPONSE = "candidate_response"
"""The CandidateCreator's raw answer: rationale and a Python code block."""
AGENT_CODE = "agent_code"
"""The Python code extracted from the candidate response."""
RUN_OUTPUT = "run_output"
"""The logs (transcript) of the last sandbox run."""
LAST_WORKING_CODE = "last_working_code"
"""The latest code whose test run completed (the fallback solution when none is accepted)."""
RUN_STATUS = "run_status"
"""How the last sandbox run ended: ok, error, timeout, no_code or syntax_error."""
RUN_ANALYSIS = "run_analysis"
"""The RunAnalysisAgent's analysis of the last run."""
ITERATION = "implementation_iteration"
"""How many implementation iterations ran (the CodeBasedRunner counts them)."""
OUTPUT_DIR = "output_dir"
"""Where the final verifier writes the solution (overrides the factory's output_dir)."""
SOLUTION_PATH = "solution_path"
"""The file the final verifier wrote (absent when there was no code)."""
VERIFIED = "verified"
"""True when the RunAnalysisAgent accepted the last run (called exit_loop)."""
WORKSPACE_REMOVED = "workspace_removed"

RunStatus = Literal["ok", "error", "timeout", "no_code", "syntax_error"]


class SetupContext(BaseModel):
    """What the setup agent records: the workspace and the request."""

    workspace_dir: str
    user_request: str


class Plan(BaseModel):
    """The implementation plan saved by the Planner."""

    implementation_plan: str = Field(min_length=1)


class VerificationPlan(BaseModel):
    """The verification plan: the prompt to run the agent with, and what should happen."""

    test_prompt: str = Field(min_length=1)
    expected_behavior: str = ""


class RelevantModules(BaseModel):
    """The modules the module selector picked."""

    modules: list[str] = Field(default_factory=list)


class RunResult(BaseModel):
    """The result of running a generated agent in the sandbox."""

    status: Literal["ok", "error", "timeout"]
    exit_code: int | None = None
    transcript: str = ""
    stderr: str = ""
    truncated: bool = False

    def as_log(self) -> str:
        """The run as one text: status line, transcript, then stderr (if any)."""
        lines = [f"status: {self.status} (exit code {self.exit_code})"]
        if self.transcript.strip():
            lines += ["--- transcript ---", self.transcript.rstrip()]
        if self.stderr.strip():
            lines += ["--- stderr ---", self.stderr.rstrip()]
        if self.truncated:
            lines.append("[output truncated]")
        return "\n".join(lines)
