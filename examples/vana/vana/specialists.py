"""The specialist agents, and the full_review workflow that chains them.

Specialists answer and give control back: ``disallow_transfer_to_parent`` and
``disallow_transfer_to_peers`` mean the next user message starts at the orchestrator
again, which routes it (one assistant, many specialists).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyadk.agents import LlmAgent, SequentialAgent

from . import prompts
from .tools import analyze_numbers, review_code, scan_for_secrets


def _specialist(
    name: str, description: str, instruction: str, tool: Callable[..., Any], **extra: Any
) -> LlmAgent:
    return LlmAgent(
        name=name,
        description=description,
        instruction=instruction,
        tools=[tool],
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
        **extra,
    )


def code_reviewer(name: str = prompts.CODE_REVIEWER, **extra: Any) -> LlmAgent:
    return _specialist(
        name,
        "Code review specialist: finds bugs and style problems in code",
        prompts.CODE_REVIEW_INSTRUCTION,
        review_code,
        **extra,
    )


def security_scanner(name: str = prompts.SECURITY_SCANNER, **extra: Any) -> LlmAgent:
    return _specialist(
        name,
        "Security specialist: scans text and code for leaked secrets",
        prompts.SECURITY_SCAN_INSTRUCTION,
        scan_for_secrets,
        **extra,
    )


def data_analyst(name: str = prompts.DATA_ANALYST, **extra: Any) -> LlmAgent:
    return _specialist(
        name,
        "Data analyst: computes statistics of numbers",
        prompts.DATA_ANALYSIS_INSTRUCTION,
        analyze_numbers,
        **extra,
    )


def full_review() -> SequentialAgent:
    """Code review, then security scan, then a report that reads both from state."""
    report = LlmAgent(
        name=prompts.REVIEW_REPORT,
        description="Writes the full review report from the steps' results",
        instruction=prompts.REVIEW_REPORT_INSTRUCTION,
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
    )
    return SequentialAgent(
        name=prompts.FULL_REVIEW,
        description="Full review workflow: code review, then security scan, then a report",
        sub_agents=[
            code_reviewer(prompts.CODE_REVIEW_STEP, output_key=prompts.CODE_REVIEW_KEY),
            security_scanner(prompts.SECURITY_SCAN_STEP, output_key=prompts.SECURITY_SCAN_KEY),
            report,
        ],
    )
