"""CassetteLlm: run a test against a real model once, then offline from a recording.

``CassetteLlm`` wraps a model. Recording, it passes every request to that model and
writes the request and the responses (streamed partials included) or the error to a
JSON cassette file; replaying, it answers from the file without touching the network::

    model = CassetteLlm(model=OpenAIChat(model="openai/gpt-4o-mini"),
                        path="tests/cassettes/weather.json")

Modes (``mode=``, else the ``PYADK_CASSETTE_MODE`` environment variable, else
``"replay"``): ``replay`` answers only from the cassette and raises
:class:`CassetteMissError` for a request it does not hold; ``record`` asks the real
model every time and writes the cassette anew; ``auto`` replays what is recorded and
records (appends) what is missing.

A recording is found by a hash of the request as the model sees it: model name,
``stream``, system instruction, contents, tools and the generation config, with
function-call ids that pyadk generated (``adk-...``) renumbered, so a new run's new ids
still match. Nothing of the request is volatile besides those ids (no clock, no event
ids); ``normalize=`` handles values of your own that change between runs.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field, PrivateAttr, TypeAdapter, field_validator, model_validator

from pyadk import errors as pyadk_errors
from pyadk.errors import ModelError, PyadkError
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.registry import LLMRegistry

__all__ = [
    "MODE_ENV_VAR",
    "CassetteLlm",
    "CassetteMissError",
    "CassetteMode",
    "cassette_llm",
    "cassette_path",
]

MODE_ENV_VAR = "PYADK_CASSETTE_MODE"
CassetteMode = Literal["replay", "record", "auto"]
_MODES: tuple[str, ...] = get_args(CassetteMode)
_FORMAT_VERSION = 1
_GENERATED_ID_PREFIX = "adk-"  # ids pyadk gives calls the model left without one
_UNKEYED_CONFIG = {
    # Separate fields of the stored request, or never seen by the model: labels are
    # billing tags, http_options transport settings (and may hold headers with keys).
    "system_instruction",
    "tools",
    "labels",
    "http_options",
    "response_schema",
    "response_json_schema",
}
_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
_REDACTED = "<redacted>"
_RECORD_HINT = (
    f"Run with {MODE_ENV_VAR}=auto to record what is missing (keeping the rest), or "
    f"{MODE_ENV_VAR}=record to record the whole cassette anew."
)


class CassetteMissError(PyadkError, AssertionError):
    """Replaying, a request had no recording left in the cassette. ``path`` is the
    cassette file; ``request`` the request as keyed (a JSON-like dict)."""

    def __init__(self, message: str, *, path: Path, request: dict[str, Any]) -> None:
        super().__init__(message)
        self.path = path
        self.request = request


def _default_mode() -> Any:
    return os.environ.get(MODE_ENV_VAR) or "replay"


class CassetteLlm(BaseLlm):
    """Replays a model's recorded answers from ``path``, or records them (see the module
    docstring for the modes).

    ``model`` is the model to record: a model object, or a name the registry resolves
    (built only when something must be recorded, so replaying needs neither the SDK's
    key nor the network). Identical requests repeated in one run replay their recordings
    in order. Errors of the wrapped model are recorded (type, message, status code,
    retryable, retry-after) and raised again on replay, as the same ``pyadk.errors``
    class. One ``CassetteLlm`` object per cassette file: share it between agents that
    use the same model, and give other models files of their own.
    """

    model: str = ""
    wrapped: BaseLlm | None = None
    """The model recorded (None until needed when ``model`` was given by name)."""
    path: Path
    mode: CassetteMode = Field(default_factory=_default_mode, validate_default=True)
    normalize: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    """Edits the request (as stored, a JSON-like dict) before it is keyed and stored:
    blank out values of your own that change between runs (e.g. timestamps a tool
    returns). May edit in place and return None."""

    _interactions: list[dict[str, Any]] | None = PrivateAttr(default=None)
    _played: dict[str, int] = PrivateAttr(default_factory=dict)
    _played_indexes: set[int] = PrivateAttr(default_factory=set)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @model_validator(mode="before")
    @classmethod
    def _split_wrapped(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("model"), BaseLlm):
            data = {**data, "wrapped": data["model"], "model": data["model"].model}
        if isinstance(data, dict) and not data.get("model") and data.get("wrapped") is not None:
            data = {**data, "model": data["wrapped"].model}
        return data

    @field_validator("mode", mode="before")
    @classmethod
    def _check_mode(cls, value: Any) -> Any:
        if value not in _MODES:
            raise ValueError(
                f"cassette mode must be one of {', '.join(_MODES)} (from mode= or "
                f"{MODE_ENV_VAR}), not {value!r}"
            )
        return value

    # -- the model contract -------------------------------------------------------

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        request = self._keyed_request(llm_request, stream)
        key = _key(request)
        if self.mode != "record":
            interaction = self._next_recording(key)
            if interaction is not None:
                for data in interaction.get("responses", []):
                    yield LlmResponse.model_validate(data)
                if interaction.get("error") is not None:
                    raise _replayed_error(interaction["error"])
                return
            if self.mode == "replay":
                raise self._miss(request, key)
        async for response in self._record(llm_request, stream, request, key):
            yield response

    async def close(self) -> None:
        """Closes the wrapped model, if it was built."""
        if self.wrapped is not None:
            await self.wrapped.close()

    # -- inspection -----------------------------------------------------------------

    def interactions(self) -> list[dict[str, Any]]:
        """The cassette's interactions, in file order (``key``, ``request``,
        ``responses``, and ``error`` for a recorded failure)."""
        return list(self._loaded())

    def unplayed(self) -> list[dict[str, Any]]:
        """The recorded interactions no request has replayed (nor recorded) yet, e.g. to
        assert at the end of a test that the agent made every call it used to make."""
        return [i for n, i in enumerate(self._loaded()) if n not in self._played_indexes]

    # -- internals ------------------------------------------------------------------

    def _keyed_request(self, llm_request: LlmRequest, stream: bool) -> dict[str, Any]:
        request = _normalised_request(llm_request, stream, self.model)
        if self.normalize is not None:
            edited = self.normalize(request)
            if edited is not None:
                request = edited
        return _scrubbed(request, self._secrets())

    def _loaded(self) -> list[dict[str, Any]]:
        if self._interactions is None:
            self._interactions = [] if self.mode == "record" else _read(self.path)
        return self._interactions

    def _next_recording(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            seen = self._played.get(key, 0)
            matches = [n for n, i in enumerate(self._loaded()) if i["key"] == key]
            if seen >= len(matches):
                return None
            self._played[key] = seen + 1
            self._played_indexes.add(matches[seen])
            return self._loaded()[matches[seen]]

    def _wrapped_model(self) -> BaseLlm:
        if self.wrapped is None:
            self.wrapped = LLMRegistry.new_llm(self.model)
        return self.wrapped

    def _secrets(self) -> list[str]:
        """Strings that must never reach a cassette: the wrapped model's api key and
        the values of environment variables named like keys, tokens or secrets."""
        found = []
        key: Any = getattr(self.wrapped, "api_key", None)
        if hasattr(key, "get_secret_value"):
            key = key.get_secret_value()
        if isinstance(key, str) and len(key) >= 8:
            found.append(key)
        for name, value in os.environ.items():
            if _SECRET_NAME.search(name) and len(value) >= 8:
                found.append(value)
        return sorted(set(found), key=len, reverse=True)

    async def _record(
        self, llm_request: LlmRequest, stream: bool, request: dict[str, Any], key: str
    ) -> AsyncGenerator[LlmResponse, None]:
        recorded: list[dict[str, Any]] = []
        error: dict[str, Any] | None = None
        keep = True
        responses = self._wrapped_model().generate_content_async(llm_request, stream=stream)
        try:
            async for response in responses:
                # Dumped before the caller sees it: the flow later adds call ids to it.
                recorded.append(response.model_dump(mode="json", by_alias=True, exclude_none=True))
                yield response
        except Exception as exc:
            error = _error_record(exc)
            raise
        except BaseException as exc:
            # The caller stopped reading (GeneratorExit): keep what it was given. A
            # cancelled call (e.g. a timeout) has nothing worth replaying.
            keep = isinstance(exc, GeneratorExit)
            raise
        finally:
            if keep:
                self._append(
                    {"key": key, "request": request, "responses": recorded, "error": error}
                )
            close = getattr(responses, "aclose", None)
            if close is not None:
                await close()

    def _append(self, interaction: dict[str, Any]) -> None:
        if interaction["error"] is None:
            del interaction["error"]
        interaction = _scrubbed(interaction, self._secrets())
        with self._lock:
            interactions = self._loaded()
            interactions.append(interaction)
            self._played_indexes.add(len(interactions) - 1)
            # Recorded counts as played: the same request again is asked anew.
            self._played[interaction["key"]] = self._played.get(interaction["key"], 0) + 1
            _write(self.path, interactions)

    def _miss(self, request: dict[str, Any], key: str) -> CassetteMissError:
        interactions = self._loaded()
        where = f"cassette {self.path}"
        if not self.path.exists():
            where += " (the file does not exist yet)"
        lines = [f"No recording left in {where} for this request: {_summary(request)}."]
        same = [n for n, i in enumerate(interactions) if i["key"] == key]
        if same:
            lines.append(
                f"The same request is recorded {len(same)} time(s) (interaction "
                f"{', '.join(f'#{n + 1}' for n in same)}) and each recording was replayed "
                "already: the agent now calls the model more often than when recorded."
            )
        elif interactions:
            n = _nearest(interactions, request, self._played_indexes)
            lines.append(
                f"Nearest recorded request: interaction #{n + 1} of {len(interactions)}. "
                "It differs in:"
            )
            lines += [f"  {d}" for d in _differences(interactions[n]["request"], request)]
        else:
            lines.append("The cassette holds no recordings.")
        lines.append(_RECORD_HINT)
        return CassetteMissError("\n".join(lines), path=self.path, request=request)


# -- the keyed request -------------------------------------------------------------------


def _normalised_request(llm_request: LlmRequest, stream: bool, model: str) -> dict[str, Any]:
    """The request as the model sees it, as JSON, without what changes between runs."""
    config = llm_request.config
    request: dict[str, Any] = {"model": llm_request.model or model, "stream": stream}
    system = config.system_instruction
    if isinstance(system, BaseModel):
        request["systemInstruction"] = _dump(system)
    elif system:
        request["systemInstruction"] = system
    ids: dict[str, str] = {}
    request["contents"] = [_normalised_content(_dump(c), ids) for c in llm_request.contents]
    if config.tools:
        request["tools"] = [_dump(t) for t in config.tools]
    settings = config.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude=_UNKEYED_CONFIG
    )
    for name, alias in (
        ("response_schema", "responseSchema"),
        ("response_json_schema", "responseJsonSchema"),
    ):
        schema = getattr(config, name)
        if schema is not None:
            settings[alias] = _schema_json(schema)
    if settings:
        request["config"] = settings
    return request


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _normalised_content(content: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    """Generated call ids renumbered in order of appearance; inline data as a digest."""
    for part in content.get("parts") or []:
        for field in ("functionCall", "functionResponse"):
            call = part.get(field)
            call_id = call.get("id") if call else None
            if isinstance(call_id, str) and call_id.startswith(_GENERATED_ID_PREFIX):
                call["id"] = ids.setdefault(call_id, f"{_GENERATED_ID_PREFIX}{len(ids) + 1}")
        blob = part.get("inlineData")
        if blob and isinstance(blob.get("data"), str):
            data = blob["data"]
            digest = hashlib.sha256(data.encode()).hexdigest()
            blob["data"] = f"sha256:{digest} ({len(data)} base64 characters)"
    return content


def _schema_json(schema: Any) -> Any:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, BaseModel):
        return _dump(schema)
    try:
        json.dumps(schema)
        return schema
    except TypeError:
        pass
    try:
        return TypeAdapter(schema).json_schema()
    except Exception:
        return repr(schema)


def _key(request: dict[str, Any]) -> str:
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _scrubbed(value: Any, secrets: list[str]) -> Any:
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, _REDACTED)
        return value
    if isinstance(value, dict):
        return {k: _scrubbed(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, secrets) for v in value]
    return value


# -- errors ------------------------------------------------------------------------------


def _error_record(exc: Exception) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": type(exc).__name__,
        "module": type(exc).__module__,
        "message": str(exc),
    }
    for name, alias in (
        ("status_code", "statusCode"),
        ("retryable", "retryable"),
        ("retry_after", "retryAfter"),
    ):
        value = getattr(exc, name, None)
        if value is not None:
            record[alias] = value
    return record


def _replayed_error(record: dict[str, Any]) -> Exception:
    """The recorded error again: its pyadk.errors (or builtin) class when it had one,
    else a ModelError naming the original type. No other module is ever imported."""
    name, module = record.get("type", ""), record.get("module", "")
    message = record.get("message", "")
    status, retry_after = record.get("statusCode"), record.get("retryAfter")
    source = {"pyadk.errors": vars(pyadk_errors), "builtins": vars(builtins)}.get(module, {})
    cls = source.get(name)
    error: Exception | None = None
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            error = (
                cls(message, status_code=status) if issubclass(cls, ModelError) else cls(message)
            )
        except Exception:
            error = None
    if error is None:
        error = ModelError(f"{module}.{name}: {message}", status_code=status)
    if retry_after is not None or isinstance(error, ModelError):
        error.retry_after = retry_after  # type: ignore[attr-defined]
    if "retryable" in record and getattr(error, "retryable", None) != record["retryable"]:
        error.retryable = record["retryable"]  # type: ignore[attr-defined]
    return error


# -- the file ----------------------------------------------------------------------------


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"cassette {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != _FORMAT_VERSION:
        raise ValueError(
            f"cassette {path} is not a version-{_FORMAT_VERSION} pyadk cassette "
            '({"version": 1, "interactions": [...]})'
        )
    interactions = data.get("interactions") or []
    for interaction in interactions:
        # The request is the truth: a hand-edited request is found by its new hash.
        interaction["key"] = _key(interaction["request"])
    return list(interactions)


def _write(path: Path, interactions: list[dict[str, Any]]) -> None:
    """Writes the cassette atomically (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(
        {"version": _FORMAT_VERSION, "interactions": interactions}, indent=2, ensure_ascii=False
    )
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as file:
            file.write(text + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# -- the miss message --------------------------------------------------------------------


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False) if value is not _MISSING else "(absent)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _summary(request: dict[str, Any]) -> str:
    contents = request.get("contents") or []
    last = _short(contents[-1], 200) if contents else "none"
    return (
        f"model {request.get('model')!r}, stream={request.get('stream')}, "
        f"{len(contents)} content(s), the last {last}"
    )


_MISSING = object()


def _first_difference(recorded: Any, requested: Any, path: str) -> tuple[str, Any, Any]:
    """The path of the first leaf where the two differ, with both values there."""
    if isinstance(recorded, dict) and isinstance(requested, dict):
        for name in [*recorded, *(k for k in requested if k not in recorded)]:
            a, b = recorded.get(name, _MISSING), requested.get(name, _MISSING)
            if a != b:
                if a is _MISSING or b is _MISSING:
                    return f"{path}.{name}", a, b
                return _first_difference(a, b, f"{path}.{name}")
    if isinstance(recorded, list) and isinstance(requested, list):
        for index, (a, b) in enumerate(zip(recorded, requested, strict=False)):
            if a != b:
                return _first_difference(a, b, f"{path}[{index}]")
        if len(recorded) != len(requested):  # one is longer: its first extra item
            index = min(len(recorded), len(requested))
            extra = [*recorded, _MISSING][index], [*requested, _MISSING][index]
            return f"{path}[{index}]", *extra
    return path, recorded, requested


def _differences(recorded: dict[str, Any], requested: dict[str, Any]) -> list[str]:
    lines = []
    for name in [*requested, *(k for k in recorded if k not in requested)]:
        a, b = recorded.get(name, _MISSING), requested.get(name, _MISSING)
        if a == b:
            continue
        where, was, now = _first_difference(a, b, name)
        lines.append(f"{where}: recorded {_short(was)}, requested {_short(now)}")
    return lines


def _nearest(interactions: list[dict[str, Any]], request: dict[str, Any], played: set[int]) -> int:
    """The index of the recorded request most like ``request``: most top-level fields
    equal, then the longest common start of the history; unplayed ones first."""

    def score(index: int) -> tuple[int, int, bool, int]:
        recorded = interactions[index]["request"]
        fields = sum(
            recorded.get(k, _MISSING) == request.get(k, _MISSING)
            for k in {*recorded, *request}
            if k != "contents"
        )
        common = 0
        for a, b in zip(recorded.get("contents", []), request.get("contents", []), strict=False):
            if a != b:
                break
            common += 1
        return common, fields, index not in played, -index

    return max(range(len(interactions)), key=score)


# -- pytest ------------------------------------------------------------------------------


def cassette_path(
    request: Any, name: str | None = None, directory: str | os.PathLike[str] | None = None
) -> Path:
    """``<directory>/<test module>/<test>.json`` for the pytest ``request`` fixture
    (``<test>.<name>.json`` with ``name``). ``directory`` defaults to ``tests/cassettes``
    under the pytest root directory."""
    root = Path(directory) if directory is not None else request.config.rootpath / "tests"
    if directory is None:
        root = root / "cassettes"
    module = Path(str(request.node.path)).stem
    test = ".".join(request.node.nodeid.split("::")[1:]) or request.node.name
    file = _safe(test) + (f".{_safe(name)}" if name else "")
    return root / module / f"{file}.json"


def cassette_llm(
    request: Any,
    model: BaseLlm | str,
    *,
    name: str | None = None,
    directory: str | os.PathLike[str] | None = None,
    **options: Any,
) -> CassetteLlm:
    """A :class:`CassetteLlm` for ``model`` whose cassette is named after the running
    test (see :func:`cassette_path`); ``options`` go to CassetteLlm (``mode``...)."""
    return CassetteLlm(model=model, path=cassette_path(request, name, directory), **options)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "test"
