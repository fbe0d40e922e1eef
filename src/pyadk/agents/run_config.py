"""RunConfig: per-run settings (streaming mode, LLM call budget, ...)."""

import enum
import logging
import sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pyadk import types
from pyadk.agents.budget import Budget
from pyadk.utils.attribute_lookup import PlainAttributeLookup
from pyadk.utils.deprecation import warn_if_set

logger = logging.getLogger(__name__)


class StreamingMode(enum.Enum):
    """How model output reaches the caller: whole (NONE), or chunk by chunk (SSE)."""

    NONE = None
    SSE = "sse"
    BIDI = "bidi"


class ToolThreadPoolConfig(PlainAttributeLookup, BaseModel):
    """Runs synchronous tool functions (and synchronous function nodes of graph
    workflows) on a thread pool of ``max_workers`` threads, so that a blocking call
    never holds up the event loop (``RunConfig.tool_thread_pool_config``).

    A call cut off by a timeout or a cancellation keeps its thread until it returns:
    Python threads cannot be stopped."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    max_workers: int = Field(default=4, ge=1)
    """Threads of the pool."""


class RunConfig(PlainAttributeLookup, BaseModel):
    """Settings for one ``Runner.run_async`` call."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    streaming_mode: StreamingMode = StreamingMode.NONE
    """``StreamingMode.SSE`` yields partial events while the model answers."""
    max_llm_calls: int = 500
    """Model calls allowed in one invocation; 0 or less means no limit. Past it,
    ``LlmCallsLimitExceededError`` is raised (google-adk's behaviour); a ``budget``
    ends the turn with an event instead."""
    budget: Budget | None = None
    """Limits on model calls, tool calls, tokens, time and repeated calls; reaching
    one ends the turn with a ``BUDGET_EXCEEDED`` event (see :class:`Budget`)."""
    save_input_blobs_as_artifacts: bool = False
    """Stores inline data of the user message as artifacts and replaces it by a note."""
    record_outcomes: Literal["non_success", "all"] = "non_success"
    """Which agent outcomes get an outcome event (and ``outcome:<agent>`` state key):
    only failures, skips, escalations, cancellations and timeouts (default, so a
    successful run yields the same events as google-adk), or every run. Outcomes of
    the current invocation are always readable with ``ctx.outcome_of(name)``. A success
    that replaces an earlier, different stored outcome of the agent is recorded too."""
    tool_thread_pool_config: ToolThreadPoolConfig | None = None
    """Runs synchronous tool functions on a thread pool instead of the event loop
    (None: a sync tool runs on the loop, or in a worker thread when several calls run
    at once)."""
    support_cfc: bool = False
    custom_metadata: dict[str, Any] | None = None

    # -- live (``Runner.run_live``) ---------------------------------------------------
    response_modalities: list[types.Modality] | None = None
    """What a live model answers with; ``run_live`` uses ``[AUDIO]`` when unset."""
    speech_config: types.SpeechConfig | None = None
    """Voice and language of a live model's speech."""
    output_audio_transcription: types.AudioTranscriptionConfig | None = None
    """Transcribes the live model's audio answers; unset, ``run_live`` uses
    ``AudioTranscriptionConfig()`` (google-adk's default); None: no transcription."""
    input_audio_transcription: types.AudioTranscriptionConfig | None = None
    """Transcribes the user's live audio; unset, ``run_live`` uses
    ``AudioTranscriptionConfig()`` (google-adk's default); None: no transcription."""
    realtime_input_config: types.RealtimeInputConfig | None = None
    """Voice activity detection and interruption of live audio input."""
    explicit_vad_signal: bool | None = None
    """Asks the live model for explicit voice activity signals."""
    enable_affective_dialog: bool | None = None
    """Lets the live model adapt its answers to the emotion it detects."""
    proactivity: types.ProactivityConfig | None = None
    """Lets the live model answer proactively or ignore irrelevant input."""
    session_resumption: types.SessionResumptionConfig | None = None
    """Resumption of a live session (passed to the model connection)."""
    context_window_compression: types.ContextWindowCompressionConfig | None = None
    """Compresses a long live session's context."""
    history_config: types.HistoryConfig | None = None
    """How the live session's initial history is exchanged."""
    translation_config: types.TranslationConfig | None = None
    """Real-time speech translation (translation models only)."""
    save_live_blob: bool = False
    """Saves a live run's audio (the user's realtime blobs, the model's inline audio)
    as artifacts on ``turn_complete``/``interrupted``, with an event referencing each
    (``file_data``) yielded and stored; needs the Runner's artifact service (see
    :mod:`pyadk.flows.live_blob_saver`)."""

    def for_live(self) -> "RunConfig":
        """This config with the live defaults applied to what is unset (on a copy when
        one is): ``response_modalities`` ``[AUDIO]``, audio transcription both ways."""
        defaults: dict[str, Any] = {}
        if self.response_modalities is None:
            defaults["response_modalities"] = [types.Modality.AUDIO]
        for name in ("input_audio_transcription", "output_audio_transcription"):
            if name not in self.model_fields_set:
                defaults[name] = types.AudioTranscriptionConfig()
        return self.model_copy(update=defaults) if defaults else self

    @field_validator("save_input_blobs_as_artifacts")
    @classmethod
    def _warn_save_input_blobs(cls, value: bool) -> bool:
        return warn_if_set(
            value, "RunConfig.save_input_blobs_as_artifacts", "SaveFilesAsArtifactsPlugin"
        )

    @field_validator("max_llm_calls")
    @classmethod
    def _check_max_llm_calls(cls, value: int) -> int:
        if value == sys.maxsize:
            raise ValueError(f"max_llm_calls should be less than {sys.maxsize}.")
        if value <= 0:
            logger.warning("max_llm_calls <= 0: model calls are not limited in this run.")
        return value
