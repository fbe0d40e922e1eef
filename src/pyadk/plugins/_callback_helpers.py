"""Verdicts the logging plugins share, so that they agree on the same inputs.

- A tool result can report a failure without raising: a ``ReflectAndRetryToolPlugin``
  answer, an MCP result with ``isError`` set, or whatever the application's
  ``tool_result_classifier`` calls an error.
- A raised tool error recorded by ``on_tool_error_callback`` is not recorded again when
  a later plugin's answer to it reaches ``after_tool_callback`` as the call's result.
- An event's ``error_code`` that is a model finish or block reason reports why the model
  stopped, not that a workflow node failed.

Reading a result never runs its code (no ``__eq__``, ``__hash__``, ``__bool__`` of its
keys or values), so a strange result cannot raise into a callback.
"""

from __future__ import annotations

import inspect
import logging
import sys
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pyadk import types
from pyadk.plugins._reflect_retry_utils import REFLECT_AND_RETRY_RESPONSE_TYPE

if TYPE_CHECKING:
    from pyadk.events.event import Event
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)


_BLOCKED_REASONS = frozenset(
    {
        "BLOCKED_REASON_UNSPECIFIED",
        "SAFETY",
        "OTHER",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "IMAGE_SAFETY",
        "MODEL_ARMOR",
        "JAILBREAK",
    }
)
_MODEL_STOP_CODES = frozenset(reason.value for reason in types.FinishReason) | _BLOCKED_REASONS

_MCP_ERROR = "Tool returned an MCP result with isError=true."
_RETRY_ANSWER_ERROR = "Tool raised an error that ReflectAndRetryToolPlugin handled."
_CLASSIFIED_ERROR = "tool_result_classifier classified the tool result as an error."


@dataclass(frozen=True)
class ToolResultClassification:
    """A ``tool_result_classifier``'s verdict on one tool result.

    ``status="ERROR"`` records the call as a tool error with ``error_message`` (a fixed
    message when empty); ``status="OK"`` records it as completed, even when the built-in
    MCP rule would call it a failure.
    """

    status: Literal["OK", "ERROR"]
    error_message: str | None = None

    def __post_init__(self) -> None:
        if type(self.status) is not str or self.status not in ("OK", "ERROR"):
            raise ValueError(
                f"ToolResultClassification.status must be 'OK' or 'ERROR', got {self.status!r}."
            )
        if self.error_message is not None and not isinstance(self.error_message, str):
            raise ValueError(
                "ToolResultClassification.error_message must be a str or None, got "
                f"{type(self.error_message).__name__}."
            )


class ToolResultClassifier(Protocol):
    """A synchronous function that classifies an application tool's result.

    Called by keyword with what ``after_tool_callback`` receives; returns a
    :class:`ToolResultClassification`, or None to leave the result to the built-in
    rules. It is not consulted for a ReflectAndRetryToolPlugin answer (always an error).
    """

    def __call__(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> ToolResultClassification | None: ...


def _validate_tool_result_classifier(classifier: Any) -> None:
    """Raises ValueError when ``classifier`` could never be called as the plugins call it."""
    if classifier is None:
        return
    if not callable(classifier):
        raise ValueError(
            f"tool_result_classifier must be callable, got {type(classifier).__name__}."
        )
    inner = getattr(classifier, "func", None)  # a functools.partial
    dunder_call = inspect.getattr_static(classifier, "__call__", None)  # a callable object
    for function in (classifier, dunder_call, inner):
        if function is not None and (
            inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function)
        ):
            raise ValueError(
                "tool_result_classifier must be synchronous: after_tool_callback calls it "
                "without awaiting it."
            )
    try:
        signature = inspect.signature(classifier)
    except (TypeError, ValueError) as error:
        raise ValueError(
            "tool_result_classifier must have a signature inspect can read; wrap it in a "
            "function taking tool, tool_args, tool_context and result."
        ) from error
    try:
        signature.bind(tool=None, tool_args=None, tool_context=None, result=None)
    except TypeError as error:
        raise ValueError(
            "tool_result_classifier must accept the keyword arguments tool, tool_args, "
            "tool_context and result."
        ) from error


def _fields(result: Any) -> dict[str, Any]:
    """The top-level entries of a dict result (or of an MCP ``CallToolResult``) that the
    built-in rules read; str keys only, read without calling the result's code."""
    entries: Any = None
    if isinstance(result, dict):
        entries = dict.items(result)
    elif _is_mcp_result(result):
        entries = vars(result).items()
    if entries is None:
        return {}
    wanted = ("response_type", "error_details", "error_type", "isError", "is_error")
    return {key: value for key, value in entries if type(key) is str and key in wanted}


def _is_mcp_result(result: Any) -> bool:
    for module_name in ("mcp.types", "mcp_types"):
        module = sys.modules.get(module_name)  # never imported here
        cls = getattr(module, "CallToolResult", None)
        if isinstance(cls, type) and isinstance(result, cls):
            return True
    return False


def _exact_str(value: Any) -> str | None:
    return str.__str__(value) if isinstance(value, str) else None


def _retry_answer_error(fields: dict[str, Any]) -> str | None:
    if _exact_str(fields.get("response_type")) != REFLECT_AND_RETRY_RESPONSE_TYPE:
        return None
    for key in ("error_details", "error_type"):
        message = _exact_str(fields.get(key))
        if message:
            return message
    return _RETRY_ANSWER_ERROR


def _mcp_error(fields: dict[str, Any]) -> str | None:
    if fields.get("isError") is True or fields.get("is_error") is True:
        return _MCP_ERROR
    return None


def _classification_error(verdict: Any) -> str | None:
    if not isinstance(verdict, ToolResultClassification):
        raise TypeError("tool_result_classifier returned an unsupported value.")
    if verdict.status == "OK":
        return None
    if verdict.status != "ERROR":
        raise ValueError("ToolResultClassification.status is not OK or ERROR.")
    message = verdict.error_message
    if message is not None and not isinstance(message, str):
        raise TypeError("ToolResultClassification.error_message is not a str.")
    return message or _CLASSIFIED_ERROR


def _classify_tool_result_error(
    *,
    tool: BaseTool,
    tool_args: dict[str, Any],
    tool_context: ToolContext,
    result: Any,
    tool_result_classifier: ToolResultClassifier | None = None,
    log: logging.Logger = logger,
) -> str | None:
    """The error message of a result that reports a failure, or None for a success.

    In turn: a ReflectAndRetryToolPlugin answer is an error; then the classifier's
    verdict (one that raises or returns something unusable is skipped with a warning
    naming only the tool, never the result); then a top-level ``isError`` /
    ``is_error`` that is exactly True.
    """
    try:
        fields = _fields(result)
    except Exception:
        log.warning("Could not read the result of tool %s; treating it as a success.", tool.name)
        return None
    message = _retry_answer_error(fields)
    if message is not None:
        return message
    if tool_result_classifier is not None:
        failed = False
        try:
            verdict = tool_result_classifier(
                tool=tool, tool_args=tool_args, tool_context=tool_context, result=result
            )
            if inspect.isawaitable(verdict):
                if inspect.iscoroutine(verdict):
                    verdict.close()
                failed = True
            elif verdict is not None:
                return _classification_error(verdict)
        except Exception:
            failed = True
        if failed:  # logged outside the except: the exception may carry the result
            log.warning(
                "tool_result_classifier failed or returned an unusable verdict for tool %s; "
                "applying the built-in rule instead.",
                tool.name,
            )
    return _mcp_error(fields)


# The tool calls whose raised error a plugin's on_tool_error_callback recorded, by the
# call's ToolContext: that plugin's after_tool_callback then skips a later plugin's
# answer to the error. Keyed by plugin id, so two plugins never consume each other's mark.
_recorded_errors: weakref.WeakKeyDictionary[Any, set[int]] = weakref.WeakKeyDictionary()


def _mark_tool_error_recorded(plugin: object, tool_context: object) -> None:
    """Remembers that ``plugin`` recorded the raised error of this tool call."""
    try:
        _recorded_errors.setdefault(tool_context, set()).add(id(plugin))
    except TypeError:  # a context that takes no weak reference: left unmarked
        pass


def _pop_tool_error_recorded(plugin: object, tool_context: object) -> bool:
    """Whether ``plugin`` recorded this call's raised error (the mark is removed)."""
    try:
        marks = _recorded_errors.get(tool_context)
    except TypeError:
        return False
    if not marks or id(plugin) not in marks:
        return False
    marks.discard(id(plugin))
    return True


def _node_path(event: Event) -> str | None:
    """The path of the workflow node that wrote ``event`` (see pyadk.workflow)."""
    metadata = event.custom_metadata
    info = metadata.get("node_info") if metadata else None
    path = info.get("path") if isinstance(info, dict) else None
    return path if isinstance(path, str) else None


def _has_node_output(event: Event) -> bool:
    """True when ``event`` records a workflow node's output."""
    metadata = event.custom_metadata
    return bool(metadata) and "output" in metadata  # type: ignore[operator]


def _is_durable_node_error(event: Event) -> bool:
    """True when a final event reports that a workflow node failed (an error code that
    is a model finish or block reason is the model stopping, not a node failure)."""
    return (
        event.partial is not True
        and bool(event.error_code)
        and event.error_code not in _MODEL_STOP_CODES
    )
