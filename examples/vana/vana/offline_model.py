"""A deterministic stand-in for an LLM that follows the VANA agents' instructions.

Used when pyadk has no default model (no key, no network) or ``VANA_MODEL=offline``.
Like a real model, it only sees what the framework sends: the declared tools tell it
which agent it is playing (``transfer_to_agent`` alone: the orchestrator; one of the
specialists' tools: that specialist; none: the report writer, whose instruction holds
the earlier steps' results injected from state), the conversation gives it the user's
request and the tool results. It streams its answers in chunks.

Like real models often do despite their instruction, the orchestrator announces the
handoff ("Transferring you to ...") in the turn that calls ``transfer_to_agent``: the
UI event protocol keeps that text out of the chat (silent handoffs).
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

from pyadk import types
from pyadk.models import LlmRequest, LlmResponse
from pyadk.testing import FunctionModel, Stream, function_call

from . import prompts

TRANSFER = "transfer_to_agent"
MAX_KEPT_REQUESTS = 100

ANNOUNCEMENTS = {
    prompts.CODE_REVIEWER: "Transferring you to our code review specialist. ",
    prompts.SECURITY_SCANNER: "Let me route this to the security specialist. ",
    prompts.DATA_ANALYST: "I'll hand this over to the data analyst. ",
    prompts.FULL_REVIEW: "Handing off to the full review workflow. ",
}
GREETING = [
    "Hi, I'm VANA. ",
    "I can review code, scan text for leaked secrets, analyse numbers, or run a full "
    "review (code review, security scan and a report): paste what you need checked.",
]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.DOTALL)
_PLAIN_PREFIX = re.compile(r"[\w\s,'-]*")


def route(text: str) -> str | None:
    """The agent the orchestrator hands ``text`` to; None: it answers itself."""
    lowered = text.lower()
    if re.search(r"\bfull[ _-]?review\b|\breview and scan\b|\baudit\b", lowered):
        return prompts.FULL_REVIEW
    if re.search(r"secret|credential|leak|password|token|api key|security|scan", lowered):
        return prompts.SECURITY_SCANNER
    numbers = _NUMBER.findall(text)
    if len(numbers) >= 2 and re.search(r"stat|average|mean|median|analy[sz]|data", lowered):
        return prompts.DATA_ANALYST
    if re.search(r"review|lint|bug|refactor|\bcode\b|\bdef |\bclass |\bimport ", lowered):
        return prompts.CODE_REVIEWER
    return None


def extract_code(text: str) -> str:
    """The code in a request: a fenced block, else the lines after the first, else the
    text after a "Review this:" style prefix, else everything."""
    fence = _FENCE.search(text)
    if fence:
        return fence.group(1)
    _, newline, rest = text.partition("\n")
    if newline and rest.strip():
        return rest
    prefix, colon, after = text.partition(":")
    if colon and after.strip() and _PLAIN_PREFIX.fullmatch(prefix):
        return after.strip()
    return text


def extract_numbers(text: str) -> list[float]:
    """The numbers of a request, after its "stats of:" style prefix when there is one."""
    _, colon, after = text.partition(":")
    return [float(n) for n in _NUMBER.findall(after if colon else text)]


def user_request(request: LlmRequest) -> str:
    """The latest message the user typed (other agents' turns arrive as "For context:")."""
    for content in reversed(request.contents):
        parts = content.parts or []
        if content.role != "user" or not parts or parts[0].text == "For context:":
            continue
        texts = [p.text for p in parts if p.text and not p.thought]
        if texts:
            return "\n".join(texts)
    return ""


def _tool_result(request: LlmRequest) -> types.FunctionResponse | None:
    last = request.contents[-1] if request.contents else None
    for part in (last.parts or []) if last and last.role == "user" else []:
        if part.function_response is not None:
            return part.function_response
    return None


def _stream_lines(text: str) -> Stream:
    return Stream([line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]])


def _orchestrate(request: LlmRequest) -> Stream:
    target = route(user_request(request))
    if target is None:
        return Stream(GREETING)
    return Stream([ANNOUNCEMENTS[target], function_call(TRANSFER, {"agent_name": target})])


ARGS = {
    "review_code": lambda text: {"code": extract_code(text)},
    "scan_for_secrets": lambda text: {"text": extract_code(text)},
    "analyze_numbers": lambda text: {"numbers": extract_numbers(text)},
}


def summarize(tool: str, result: dict[str, Any]) -> str:
    """The specialist's answer for its tool's result, in its instruction's format."""
    if tool == "review_code":
        head = f"Code review: {result['issue_count']} issue(s) in {result['lines']} line(s)."
        items = [f"- line {i['line']}: {i['message']} ({i['rule']})" for i in result["issues"]]
        return "\n".join([head, *items]) if items else head + " The code looks clean."
    if tool == "scan_for_secrets":
        head = f"Security scan: {result['count']} possible secret(s) in "
        head += f"{result['lines_scanned']} line(s)."
        items = [
            f"- line {f['line']}: {f['kind']} ({f['severity']}), {f['match']}"
            for f in result["findings"]
        ]
        return "\n".join([head, *items]) if items else head + " No secrets found."
    if "error" in result:
        return f"I could not analyse that: {result['error']} For example: stats of 3, 5, 8."
    outliers = ", ".join(str(v) for v in result["outliers"]) or "none"
    return (
        f"Data analysis of {result['count']} numbers: mean {result['mean']}, median "
        f"{result['median']}, min {result['min']}, max {result['max']}, standard deviation "
        f"{result['stdev']}. Outliers: {outliers}."
    )


def _section(instruction: str, tag: str) -> str:
    match = re.search(rf"<{tag}>\s*(.*?)\s*</{tag}>", instruction, re.DOTALL)
    return match.group(1) if match else ""


def report(instruction: str) -> str:
    """The review_report answer from the step results injected into its instruction."""
    review, scan = _section(instruction, "code_review"), _section(instruction, "security_scan")
    secrets = re.search(r"(\d+) possible secret", scan)
    issues = re.search(r"(\d+) issue", review)
    if secrets and int(secrets.group(1)):
        verdict = "Verdict: not ready: remove the secrets first."
    elif issues and int(issues.group(1)):
        verdict = "Verdict: fix the review issues."
    else:
        verdict = "Verdict: ready to merge."
    firsts = [text.split("\n")[0] for text in (review, scan) if text]
    return "\n".join(["Full review report", *firsts, verdict])


def reply(request: LlmRequest) -> Any:
    """The stand-in's reply to one request."""
    declared = request.declared_function_names()
    tools = [name for name in declared if name != TRANSFER]
    if TRANSFER in declared and not tools:
        return _orchestrate(request)
    if tools:
        result = _tool_result(request)
        if result is not None:
            return _stream_lines(summarize(result.name or "", result.response or {}))
        tool = tools[0]
        make_args = ARGS.get(tool, lambda text: {})
        return function_call(tool, make_args(user_request(request)))
    instruction = request.system_instruction_text()
    if "<code_review>" in instruction:
        return _stream_lines(report(instruction))
    return "I have no instructions for this agent."


class OfflineModel(FunctionModel):
    """FunctionModel that keeps only its last requests (a dev server runs for long)."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        async for response in super().generate_content_async(llm_request, stream):
            yield response
        del self.requests[:-MAX_KEPT_REQUESTS]


def create_offline_model() -> OfflineModel:
    """The offline stand-in model."""
    return OfflineModel(reply, model="vana-offline")
