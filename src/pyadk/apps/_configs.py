"""The configuration objects of an App: events compaction and resumability."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pyadk.apps.base_events_summarizer import BaseEventsSummarizer


class EventsCompactionConfig(BaseModel):
    """When and how the runner summarises a session's older events after a turn.

    Two triggers, each a pair of fields set together (at least one pair is needed):

    - sliding window (``compaction_interval`` + ``overlap_size``): once
      ``compaction_interval`` invocations have completed since the last summary, the
      events of those invocations plus the ``overlap_size`` invocations before them
      are summarised into one compaction event;
    - token threshold (``token_threshold`` + ``event_retention_size``): once the
      latest model call's prompt reached ``token_threshold`` tokens (its
      ``usage_metadata``, else an estimate of 4 characters per token), every event
      since the last summary except the last ``event_retention_size`` is summarised,
      together with the previous summary. Checked first; the sliding window only runs
      when it did not compact.

    ``summarizer`` defaults to an :class:`~pyadk.apps.llm_event_summarizer.LlmEventSummarizer`
    on the root agent's model (set on first use).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    summarizer: BaseEventsSummarizer | None = None
    """Turns a list of events into a compaction event."""
    compaction_interval: int | None = Field(default=None, gt=0)
    """New invocations that trigger a sliding-window summary."""
    overlap_size: int | None = Field(default=None, ge=0)
    """Invocations before the new ones that the next summary covers again."""
    token_threshold: int | None = Field(default=None, gt=0)
    """Prompt tokens from which a token-threshold summary is written."""
    event_retention_size: int | None = Field(default=None, ge=0)
    """Latest events a token-threshold summary leaves as they are."""

    @model_validator(mode="after")
    def _check_pairs(self) -> EventsCompactionConfig:
        token = self.token_threshold is not None
        if token != (self.event_retention_size is not None):
            raise ValueError("token_threshold and event_retention_size must be set together.")
        window = self.compaction_interval is not None
        if window != (self.overlap_size is not None):
            raise ValueError("compaction_interval and overlap_size must be set together.")
        if not (token or window):
            raise ValueError(
                "EventsCompactionConfig needs a trigger: compaction_interval and "
                "overlap_size, or token_threshold and event_retention_size."
            )
        return self


class ResumabilityConfig(BaseModel):
    """google-adk's resumability switch, accepted for source compatibility.

    pyadk stores it on the App and the Runner but does not act on it: paused turns
    (long-running tools, tool confirmations) always resume from the session's events,
    and an interrupted invocation is not replayed (see docs/compatibility.md).
    """

    is_resumable: bool = False
    """Whether invocations should be resumable (not acted on by pyadk)."""
