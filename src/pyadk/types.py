"""Content model used by agents, with google.genai's names, fields and camelCase JSON.

Ported code changes ``from google.genai import types`` to ``from pyadk import types``.
Where google-genai is installed, its objects are accepted wherever a pyadk type is
expected and converted on the way in.

No ``from __future__ import annotations`` here: pydantic would evaluate every field's
annotation string when each class is created, a tenth of this module's import time.
"""

import base64
import enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_serializer, field_validator

from pyadk.utils.attribute_lookup import PlainAttributeLookup
from pyadk.utils.camel_case import to_camel

__all__ = [
    "ActivityEnd",
    "ActivityHandling",
    "ActivityStart",
    "AudioTranscriptionConfig",
    "AutomaticActivityDetection",
    "Blob",
    "CodeExecutionResult",
    "Content",
    "ContextWindowCompressionConfig",
    "EndSensitivity",
    "ExecutableCode",
    "FileData",
    "FinishReason",
    "FunctionCall",
    "FunctionCallingConfig",
    "FunctionCallingConfigMode",
    "FunctionDeclaration",
    "FunctionResponse",
    "FunctionResponseBlob",
    "FunctionResponseFileData",
    "FunctionResponsePart",
    "GenerateContentConfig",
    "GenerateContentResponseUsageMetadata",
    "HistoryConfig",
    "Language",
    "LiveClientRealtimeInput",
    "LiveConnectConfig",
    "LiveServerGoAway",
    "LiveServerSessionResumptionUpdate",
    "Modality",
    "ModelContent",
    "Outcome",
    "Part",
    "PrebuiltVoiceConfig",
    "ProactivityConfig",
    "RealtimeInputConfig",
    "Schema",
    "SessionResumptionConfig",
    "SlidingWindow",
    "SpeechConfig",
    "StartSensitivity",
    "ThinkingConfig",
    "Tool",
    "ToolCodeExecution",
    "ToolConfig",
    "Transcription",
    "TranslationConfig",
    "TurnCoverage",
    "Type",
    "UsageMetadata",
    "UserContent",
    "VoiceConfig",
]


class _Base(PlainAttributeLookup, BaseModel):
    """Base of every pyadk content type: camelCase aliases, no unknown fields.

    Objects that are not dicts are read by attribute (``from_attributes``), so
    google-genai's objects validate into pyadk's: each level by its own pyadk type,
    fields pyadk does not model (e.g. ``video_metadata``) left behind.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        use_enum_values=False,
        from_attributes=True,  # see the class docstring
        # Schemas are built on first use: most programs touch a few of these types.
        defer_build=True,
    )

    def __repr_args__(self) -> Any:
        return [(k, v) for k, v in super().__repr_args__() if v is not None]


def _bytes_in(value: Any) -> Any:
    """Accepts raw bytes, or base64 text as found in JSON (either alphabet)."""
    if isinstance(value, str):
        padded = value + "=" * (-len(value) % 4)
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"))
    return value


class Type(enum.StrEnum):
    """JSON-schema-like data types used by :class:`Schema`."""

    TYPE_UNSPECIFIED = "TYPE_UNSPECIFIED"
    STRING = "STRING"
    NUMBER = "NUMBER"
    INTEGER = "INTEGER"
    BOOLEAN = "BOOLEAN"
    ARRAY = "ARRAY"
    OBJECT = "OBJECT"
    NULL = "NULL"


class FinishReason(enum.StrEnum):
    """Why a model stopped generating."""

    FINISH_REASON_UNSPECIFIED = "FINISH_REASON_UNSPECIFIED"
    STOP = "STOP"
    MAX_TOKENS = "MAX_TOKENS"
    SAFETY = "SAFETY"
    RECITATION = "RECITATION"
    LANGUAGE = "LANGUAGE"
    OTHER = "OTHER"
    BLOCKLIST = "BLOCKLIST"
    PROHIBITED_CONTENT = "PROHIBITED_CONTENT"
    SPII = "SPII"
    MALFORMED_FUNCTION_CALL = "MALFORMED_FUNCTION_CALL"
    UNEXPECTED_TOOL_CALL = "UNEXPECTED_TOOL_CALL"


class Outcome(enum.StrEnum):
    """Outcome of a code execution."""

    OUTCOME_UNSPECIFIED = "OUTCOME_UNSPECIFIED"
    OUTCOME_OK = "OUTCOME_OK"
    OUTCOME_FAILED = "OUTCOME_FAILED"
    OUTCOME_DEADLINE_EXCEEDED = "OUTCOME_DEADLINE_EXCEEDED"


class Language(enum.StrEnum):
    """Programming language of :class:`ExecutableCode`."""

    LANGUAGE_UNSPECIFIED = "LANGUAGE_UNSPECIFIED"
    PYTHON = "PYTHON"


class FunctionCallingConfigMode(enum.StrEnum):
    """How the model may call functions: AUTO decides, ANY must call, NONE must not."""

    MODE_UNSPECIFIED = "MODE_UNSPECIFIED"
    AUTO = "AUTO"
    ANY = "ANY"
    NONE = "NONE"
    VALIDATED = "VALIDATED"


class _InlineBytes(_Base):
    """Bytes with a MIME type; base64 in JSON (either alphabet read, URL-safe written)."""

    mime_type: str | None = None
    data: bytes | None = None
    display_name: str | None = None

    @field_validator("data", mode="before")
    @classmethod
    def _decode_data(cls, value: Any) -> Any:
        return _bytes_in(value)

    @field_serializer("data", when_used="json")
    def _data_json(self, value: bytes | None) -> str | None:
        return None if value is None else base64.urlsafe_b64encode(value).decode("ascii")


class Blob(_InlineBytes):
    """Inline bytes with a MIME type."""


class FileData(_Base):
    """A reference to a file by URI."""

    file_uri: str | None = None
    mime_type: str | None = None
    display_name: str | None = None


class FunctionCall(_Base):
    """A call of a function (tool) requested by the model."""

    id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None


class FunctionResponseBlob(_InlineBytes):
    """Inline bytes a tool returns with its result (e.g. an image it made)."""


class FunctionResponseFileData(_Base):
    """A file, by URI, that a tool returns with its result."""

    file_uri: str | None = None
    mime_type: str | None = None
    display_name: str | None = None


class FunctionResponsePart(_Base):
    """Media that travels inside a :class:`FunctionResponse` (``parts``)."""

    inline_data: FunctionResponseBlob | None = None
    file_data: FunctionResponseFileData | None = None

    @classmethod
    def from_bytes(cls, *, data: bytes, mime_type: str) -> "FunctionResponsePart":
        """A part holding inline bytes."""
        return cls(inline_data=FunctionResponseBlob(data=data, mime_type=mime_type))

    @classmethod
    def from_uri(cls, *, file_uri: str, mime_type: str) -> "FunctionResponsePart":
        """A part referring to a file by URI."""
        return cls(file_data=FunctionResponseFileData(file_uri=file_uri, mime_type=mime_type))


class FunctionResponse(_Base):
    """The result of a function call, sent back to the model; ``parts`` holds the media
    (images, files) the tool returned, which models receive as media, not text."""

    id: str | None = None
    name: str | None = None
    response: dict[str, Any] | None = None
    will_continue: bool | None = None
    parts: list[FunctionResponsePart] | None = None


class ExecutableCode(_Base):
    """Code produced by the model to be executed."""

    code: str | None = None
    language: str | None = None


class CodeExecutionResult(_Base):
    """The result of running :class:`ExecutableCode`."""

    outcome: Outcome | None = None
    output: str | None = None


class Part(_Base):
    """One piece of a :class:`Content`: text, a function call or response, data..."""

    text: str | None = None
    thought: bool | None = None
    thought_signature: bytes | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    inline_data: Blob | None = None
    file_data: FileData | None = None
    executable_code: ExecutableCode | None = None
    code_execution_result: CodeExecutionResult | None = None

    @field_validator("thought_signature", mode="before")
    @classmethod
    def _decode_signature(cls, value: Any) -> Any:
        return _bytes_in(value)

    @field_serializer("thought_signature", when_used="json")
    def _sig_json(self, value: bytes | None) -> str | None:
        return None if value is None else base64.urlsafe_b64encode(value).decode("ascii")

    @classmethod
    def from_text(cls, *, text: str) -> "Part":
        """A text part."""
        return cls(text=text)

    @classmethod
    def from_function_call(cls, *, name: str, args: dict[str, Any]) -> "Part":
        """A function-call part."""
        return cls(function_call=FunctionCall(name=name, args=args))

    @classmethod
    def from_function_response(
        cls,
        *,
        name: str,
        response: dict[str, Any],
        parts: list[FunctionResponsePart] | None = None,
    ) -> "Part":
        """A function-response part; ``parts`` carries media returned with it."""
        return cls(function_response=FunctionResponse(name=name, response=response, parts=parts))

    @classmethod
    def from_bytes(cls, *, data: bytes, mime_type: str) -> "Part":
        """An inline-data part."""
        return cls(inline_data=Blob(data=data, mime_type=mime_type))

    @classmethod
    def from_uri(cls, *, file_uri: str, mime_type: str | None = None) -> "Part":
        """A file-reference part."""
        return cls(file_data=FileData(file_uri=file_uri, mime_type=mime_type))

    @classmethod
    def from_executable_code(cls, *, code: str, language: str) -> "Part":
        """A part holding code for a code executor to run."""
        return cls(executable_code=ExecutableCode(code=code, language=language))

    @classmethod
    def from_code_execution_result(cls, *, outcome: Outcome, output: str) -> "Part":
        """A part holding what running code produced."""
        return cls(code_execution_result=CodeExecutionResult(outcome=outcome, output=output))


class Content(_Base):
    """A message: a role (``user`` or ``model``) and its parts."""

    role: str | None = None
    parts: list[Part] | None = None

    @property
    def text(self) -> str | None:
        """The concatenated text of the non-thought text parts, or None if there is none."""
        if not self.parts:
            return None
        texts = [p.text for p in self.parts if p.text is not None and not p.thought]
        return "".join(texts) if texts else None


class UserContent(Content):
    """A ``user`` content from text or parts: ``UserContent("hi")``."""

    def __init__(self, parts: str | Part | list[Part | str], **data: Any) -> None:
        super().__init__(role="user", parts=_as_parts(parts), **data)


class ModelContent(Content):
    """A ``model`` content from text or parts."""

    def __init__(self, parts: str | Part | list[Part | str], **data: Any) -> None:
        super().__init__(role="model", parts=_as_parts(parts), **data)


def _as_parts(parts: str | Part | list[Part | str]) -> list[Part]:
    items = parts if isinstance(parts, list) else [parts]
    return [Part(text=p) if isinstance(p, str) else p for p in items]


class Schema(_Base):
    """An OpenAPI-style schema for function parameters and structured output."""

    type: Type | None = None
    format: str | None = None
    title: str | None = None
    description: str | None = None
    nullable: bool | None = None
    enum: list[str] | None = None
    items: "Schema | None" = None
    properties: "dict[str, Schema] | None" = None
    required: list[str] | None = None
    any_of: "list[Schema] | None" = None
    default: Any | None = None
    example: Any | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    property_ordering: list[str] | None = None

    def to_json_schema(self) -> dict[str, Any]:
        """This schema as a standard JSON Schema dict (lower-case types)."""
        out: dict[str, Any] = {}
        if self.any_of:
            out["anyOf"] = [s.to_json_schema() for s in self.any_of]
        if self.type is not None and self.type is not Type.TYPE_UNSPECIFIED:
            out["type"] = self.type.value.lower()
            if self.nullable:
                out["type"] = [out["type"], "null"]
        for key, target in (
            ("format", "format"),
            ("title", "title"),
            ("description", "description"),
            ("enum", "enum"),
            ("required", "required"),
            ("default", "default"),
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("min_items", "minItems"),
            ("max_items", "maxItems"),
            ("min_length", "minLength"),
            ("max_length", "maxLength"),
            ("pattern", "pattern"),
        ):
            value = getattr(self, key)
            if value is not None:
                out[target] = value
        if self.items is not None:
            out["items"] = self.items.to_json_schema()
        if self.properties is not None:
            out["properties"] = {k: v.to_json_schema() for k, v in self.properties.items()}
        return out


class FunctionDeclaration(_Base):
    """A function (tool) the model may call: its name, description and parameters."""

    name: str | None = None
    description: str | None = None
    parameters: Schema | None = None
    parameters_json_schema: Any | None = None
    response: Schema | None = None


class ToolCodeExecution(_Base):
    """The model's server-side code execution tool (no settings)."""


class Tool(_Base):
    """A group of function declarations, or a provider built-in tool (opaque dicts)."""

    function_declarations: list[FunctionDeclaration] | None = None
    google_search: dict[str, Any] | None = None
    google_search_retrieval: dict[str, Any] | None = None
    code_execution: ToolCodeExecution | dict[str, Any] | None = None
    url_context: dict[str, Any] | None = None


class FunctionCallingConfig(_Base):
    """Function-calling mode and, for ANY, which functions may be called."""

    mode: FunctionCallingConfigMode | None = None
    allowed_function_names: list[str] | None = None


class ToolConfig(_Base):
    """Tool settings shared by all tools of a request."""

    function_calling_config: FunctionCallingConfig | None = None


class ThinkingConfig(_Base):
    """Reasoning settings for models that think."""

    include_thoughts: bool | None = None
    thinking_budget: int | None = None


class GenerateContentConfig(_Base):
    """Generation settings for a model request."""

    system_instruction: Content | str | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: float | None = None
    candidate_count: int | None = None
    max_output_tokens: int | None = None
    stop_sequences: list[str] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    seed: int | None = None
    response_mime_type: str | None = None
    response_schema: Any | None = None
    response_json_schema: Any | None = None
    tools: list[Tool] | None = None
    tool_config: ToolConfig | None = None
    labels: dict[str, str] | None = None
    thinking_config: ThinkingConfig | None = None
    safety_settings: list[dict[str, Any]] | None = None
    http_options: dict[str, Any] | None = None


class GenerateContentResponseUsageMetadata(_Base):
    """Token counts of a model call."""

    prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    total_token_count: int | None = None
    thoughts_token_count: int | None = None
    cached_content_token_count: int | None = None
    tool_use_prompt_token_count: int | None = None


UsageMetadata = GenerateContentResponseUsageMetadata

Role = Literal["user", "model"]


# -- live (bidirectional) API ----------------------------------------------------------


class Modality(enum.StrEnum):
    """An output modality of a live model."""

    MODALITY_UNSPECIFIED = "MODALITY_UNSPECIFIED"
    TEXT = "TEXT"
    IMAGE = "IMAGE"
    AUDIO = "AUDIO"
    VIDEO = "VIDEO"


class ActivityHandling(enum.StrEnum):
    """Whether the user's speech interrupts the model."""

    ACTIVITY_HANDLING_UNSPECIFIED = "ACTIVITY_HANDLING_UNSPECIFIED"
    START_OF_ACTIVITY_INTERRUPTS = "START_OF_ACTIVITY_INTERRUPTS"
    NO_INTERRUPTION = "NO_INTERRUPTION"


class TurnCoverage(enum.StrEnum):
    """Which realtime input a user turn includes."""

    TURN_COVERAGE_UNSPECIFIED = "TURN_COVERAGE_UNSPECIFIED"
    TURN_INCLUDES_ONLY_ACTIVITY = "TURN_INCLUDES_ONLY_ACTIVITY"
    TURN_INCLUDES_ALL_INPUT = "TURN_INCLUDES_ALL_INPUT"


class StartSensitivity(enum.StrEnum):
    """How readily speech is detected as starting."""

    START_SENSITIVITY_UNSPECIFIED = "START_SENSITIVITY_UNSPECIFIED"
    START_SENSITIVITY_HIGH = "START_SENSITIVITY_HIGH"
    START_SENSITIVITY_LOW = "START_SENSITIVITY_LOW"


class EndSensitivity(enum.StrEnum):
    """How readily speech is detected as ended."""

    END_SENSITIVITY_UNSPECIFIED = "END_SENSITIVITY_UNSPECIFIED"
    END_SENSITIVITY_HIGH = "END_SENSITIVITY_HIGH"
    END_SENSITIVITY_LOW = "END_SENSITIVITY_LOW"


class Transcription(_Base):
    """Text transcribed from the user's or the model's audio."""

    text: str | None = None
    finished: bool | None = None
    """True on the last (whole) transcription of a turn."""


class AudioTranscriptionConfig(_Base):
    """Asks a live model to transcribe audio (empty: the defaults)."""

    language_codes: list[str] | None = None


class PrebuiltVoiceConfig(_Base):
    """A voice of the model's own set, by name."""

    voice_name: str | None = None


class VoiceConfig(_Base):
    """The voice a live model speaks with."""

    prebuilt_voice_config: PrebuiltVoiceConfig | None = None


class SpeechConfig(_Base):
    """Speech output of a live model: voice and language."""

    voice_config: VoiceConfig | None = None
    language_code: str | None = None
    multi_speaker_voice_config: dict[str, Any] | None = None


class ActivityStart(_Base):
    """Marks the start of user activity (client-side voice activity detection)."""


class ActivityEnd(_Base):
    """Marks the end of user activity (client-side voice activity detection)."""


class AutomaticActivityDetection(_Base):
    """The server's voice activity detection."""

    disabled: bool | None = None
    start_of_speech_sensitivity: StartSensitivity | None = None
    end_of_speech_sensitivity: EndSensitivity | None = None
    prefix_padding_ms: int | None = None
    silence_duration_ms: int | None = None


class RealtimeInputConfig(_Base):
    """How a live model handles realtime (audio/video) input."""

    automatic_activity_detection: AutomaticActivityDetection | None = None
    activity_handling: ActivityHandling | None = None
    turn_coverage: TurnCoverage | None = None


class SessionResumptionConfig(_Base):
    """Resumption of a live session (``handle`` of an earlier one)."""

    handle: str | None = None
    transparent: bool | None = None


class LiveServerSessionResumptionUpdate(_Base):
    """A live server's new resumption handle (sent when ``session_resumption`` is set).

    ``new_handle`` resumes the session at this point; it is empty when ``resumable``
    is false (e.g. while the model generates or calls functions).
    """

    new_handle: str | None = None
    resumable: bool | None = None
    last_consumed_client_message_index: int | None = None


class LiveServerGoAway(_Base):
    """A live server's notice that it will close the connection in ``time_left``."""

    time_left: str | None = None


class SlidingWindow(_Base):
    """Context-window compression that keeps the latest tokens."""

    target_tokens: int | None = None


class ContextWindowCompressionConfig(_Base):
    """Compresses a live session's context past ``trigger_tokens``."""

    trigger_tokens: int | None = None
    sliding_window: SlidingWindow | None = None


class ProactivityConfig(_Base):
    """Lets a live model answer proactively, or ignore irrelevant input."""

    proactive_audio: bool | None = None


class HistoryConfig(_Base):
    """How a live session's initial history is exchanged."""

    initial_history_in_client_content: bool | None = None


class TranslationConfig(_Base):
    """Real-time speech-to-speech translation (translation models only)."""

    target_language_code: str | None = None
    echo_target_language: bool | None = None


class LiveConnectConfig(_Base):
    """The configuration a live model connection is opened with."""

    response_modalities: list[Modality] | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: float | None = None
    max_output_tokens: int | None = None
    seed: int | None = None
    speech_config: SpeechConfig | None = None
    thinking_config: ThinkingConfig | None = None
    enable_affective_dialog: bool | None = None
    system_instruction: Content | str | None = None
    tools: list[Tool] | None = None
    session_resumption: SessionResumptionConfig | None = None
    input_audio_transcription: AudioTranscriptionConfig | None = None
    output_audio_transcription: AudioTranscriptionConfig | None = None
    realtime_input_config: RealtimeInputConfig | None = None
    context_window_compression: ContextWindowCompressionConfig | None = None
    proactivity: ProactivityConfig | None = None
    explicit_vad_signal: bool | None = None
    history_config: HistoryConfig | None = None
    translation_config: TranslationConfig | None = None


class LiveClientRealtimeInput(_Base):
    """Realtime input signals of a live client (``audio_stream_end``)."""

    audio_stream_end: bool | None = None
