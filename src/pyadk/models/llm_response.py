"""LlmResponse: one (possibly partial) answer from a model."""

from typing import Any

from pydantic import ConfigDict

from pyadk import types
from pyadk.types import _Base


class LlmResponse(_Base):
    """What a model returns for one request, or one chunk of a streamed answer.

    ``partial`` marks a streamed chunk; the aggregated answer follows as a non-partial
    response. ``error_code``/``error_message`` carry a provider-reported failure.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    content: types.Content | None = None
    grounding_metadata: dict[str, Any] | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    finish_reason: types.FinishReason | None = None
    error_code: str | None = None
    error_message: str | None = None
    interrupted: bool | None = None
    custom_metadata: dict[str, Any] | None = None
    usage_metadata: types.GenerateContentResponseUsageMetadata | None = None
    model_version: str | None = None
    input_transcription: types.Transcription | None = None
    """Live mode: text transcribed from the user's audio."""
    output_transcription: types.Transcription | None = None
    """Live mode: text transcribed from the model's audio."""
    live_session_resumption_update: types.LiveServerSessionResumptionUpdate | None = None
    """Live mode: the server's new session resumption handle."""
    go_away: types.LiveServerGoAway | None = None
    """Live mode: the server will close the connection soon."""
