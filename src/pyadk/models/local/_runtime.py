"""The inference runtimes under LocalLlm: ``xllamacpp`` (default) or ``llama-cpp-python``.

Both take a raw prompt (the chat template is rendered by pyadk) and an output
:class:`Constraint`, and return a :class:`Completion`. A runtime is loaded once per
process for a given (backend, file, context size, threads) and shared by every
LocalLlm; calls are serialised, since the model has one sequence slot.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pyadk.errors import BadRequestError, ModelError

OnText = Callable[[str], bool]
"""Receives each generated text delta; returning True stops the generation."""

BACKENDS = ("xllamacpp", "llama-cpp-python")
BACKEND_ENV = "PYADK_LOCAL_BACKEND"
"""Names the backend LocalLlm(backend="auto") uses (e.g. to run a test suite on another)."""
_MODULES = {"xllamacpp": "xllamacpp", "llama-cpp-python": "llama_cpp"}
_TEXT_START_EXCLUDED = "{<`"


class RuntimeUnavailableError(ImportError):
    """No supported inference runtime is installed."""


@dataclass(frozen=True)
class Constraint:
    """What the output may be: JSON matching ``json_schema``, free text, or either.

    With both, free text must not start with ``{``, ``<``, a backtick or whitespace, so
    anything that looks like a call is a schema-valid call. A call may also be wrapped
    in Qwen's ``<tool_call>`` tags.
    """

    json_schema: dict[str, Any] | None = None
    allow_text: bool = True
    text_guard: bool = False
    """Without a schema: text may still not start like a call (tools were declared)."""
    json_text: bool = False
    """Free text may be JSON whose first key does not start with "n"."""


@dataclass
class Completion:
    """One generation: its text, token counts and why it stopped."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    cached_tokens: int = 0
    timings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sampling:
    """Generation settings (greedy by default)."""

    max_tokens: int = 512
    temperature: float = 0.0
    top_p: float | None = None
    top_k: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()


class Runtime(Protocol):
    """A loaded model that completes raw prompts."""

    backend: str

    def complete(
        self, prompt: str, sampling: Sampling, constraint: Constraint, on_text: OnText | None
    ) -> Completion: ...


def available_backends() -> list[str]:
    """The installed backends, preferred first (checked without importing them)."""
    return [b for b in BACKENDS if importlib.util.find_spec(_MODULES[b]) is not None]


def choose_backend(requested: str = "auto") -> str:
    """The backend to use: ``requested``; for ``auto``, ``$PYADK_LOCAL_BACKEND`` when set,
    else the first installed one."""
    if requested == "auto":
        requested = os.environ.get(BACKEND_ENV, "").strip() or "auto"
    if requested != "auto" and requested not in BACKENDS:
        raise ValueError(f"Unknown local backend {requested!r}: use one of {BACKENDS} or 'auto'.")
    installed = available_backends()
    if requested == "auto":
        if not installed:
            raise RuntimeUnavailableError(
                "The embedded model needs an inference runtime: pip install 'pyadk[local]' "
                "(xllamacpp), or install llama-cpp-python."
            )
        return installed[0]
    if requested not in installed:
        raise RuntimeUnavailableError(f"The {requested!r} backend is not installed.")
    return requested


# Free text may not start like a call: not with "{", "<", a backtick or whitespace. The
# JSON-tolerant variant allows "{" when the first key does not start with "n", so JSON
# answers stay possible while '{"name"' can only continue as a schema-valid call.
_LLG_TEXT = "PYADK_TEXT: /[^{<`\\s][\\s\\S]*/"
_LLG_JSON_TEXT = 'PYADK_TEXT: /([^{<`\\s]|\\{\\s*"[^n"])[\\s\\S]*/'
_GBNF_TEXT = "pyadk-text ::= [^{<`\\x20\\t\\n\\r] [^\\x00]*"
_GBNF_JSON_TEXT = 'pyadk-text ::= ([^{<`\\x20\\t\\n\\r] | "{" [ \\t\\n\\r]* "\\"" [^n"]) [^\\x00]*'


def _text_rule(llguidance: bool, json_text: bool) -> str:
    if llguidance:
        return _LLG_JSON_TEXT if json_text else _LLG_TEXT
    return _GBNF_JSON_TEXT if json_text else _GBNF_TEXT


def text_grammar(llguidance: bool, json_text: bool = False) -> str:
    """A grammar for free text that cannot be taken for a function call (see above)."""
    if llguidance:
        return "\n".join(["%llguidance {}", "start: PYADK_TEXT", _text_rule(True, json_text)])
    return "\n".join(["root ::= pyadk-text", _text_rule(False, json_text)])


def grammar_with_text(call_grammar: str, json_text: bool = False) -> str:
    """A grammar accepting a JSON value of ``call_grammar`` (bare or in ``<tool_call>``
    tags) or free text that cannot be taken for a call.

    ``call_grammar`` is what llama.cpp's ``json_schema_to_grammar`` returns: either an
    llguidance grammar (``%llguidance {}`` / ``start: %json {...}``) or GBNF.
    """
    lines = call_grammar.strip().splitlines()
    if lines and lines[0].startswith("%llguidance"):
        body = [line for line in lines[1:] if line.strip()]
        renamed = [
            "pyadk_call:" + line[len("start:") :] if line.startswith("start:") else line
            for line in body
        ]
        start = 'start: pyadk_call | "<tool_call>\\n" pyadk_call "\\n</tool_call>" | PYADK_TEXT'
        return "\n".join([lines[0], start, *renamed, _text_rule(True, json_text)])
    renamed = [
        "pyadk-call ::=" + line[len("root ::=") :] if line.startswith("root ::=") else line
        for line in lines
    ]
    start = 'root ::= pyadk-call | "<tool_call>\\n" pyadk-call "\\n</tool_call>" | pyadk-text'
    return "\n".join([start, *renamed, _text_rule(False, json_text)])


def grammar_for(constraint: Constraint, to_grammar: Callable[[dict[str, Any]], str]) -> str | None:
    """The grammar enforcing ``constraint`` (None when unconstrained or plain JSON, which
    the runtimes take as a JSON schema). ``to_grammar`` is the runtime's converter."""
    if constraint.json_schema is None:
        if not constraint.text_guard:
            return None
        llguidance = to_grammar({}).startswith("%llguidance")
        return text_grammar(llguidance, constraint.json_text)
    if constraint.allow_text:
        return grammar_with_text(to_grammar(constraint.json_schema), constraint.json_text)
    return None


def _error(payload: dict[str, Any]) -> ModelError:
    error = payload.get("error", payload)
    message = str(error.get("message", error)) if isinstance(error, dict) else str(error)
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) else None
    text = f"Local model error: {message}"
    if status is not None and 400 <= status < 500:
        return BadRequestError(text, status_code=status)
    return ModelError(text, status_code=status)


class XllamacppRuntime:
    """llama.cpp through ``xllamacpp``'s in-process server (completions endpoint)."""

    backend = "xllamacpp"

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int) -> None:
        import xllamacpp

        self._module = xllamacpp
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.warmup = False
        params.verbosity = -1
        self._server = xllamacpp.Server(params)
        self._lock = threading.Lock()

    @property
    def listening_address(self) -> str:
        """The loopback address of the OpenAI-compatible HTTP server xllamacpp runs."""
        return str(self._server.listening_address)

    def _request(self, prompt: str, sampling: Sampling, constraint: Constraint) -> dict[str, Any]:
        request: dict[str, Any] = {
            "prompt": prompt,
            "n_predict": sampling.max_tokens,
            "temperature": sampling.temperature,
            "cache_prompt": True,
        }
        if sampling.top_p is not None:
            request["top_p"] = sampling.top_p
        if sampling.top_k is not None:
            request["top_k"] = sampling.top_k
        if sampling.seed is not None:
            request["seed"] = sampling.seed
        if sampling.stop:
            request["stop"] = list(sampling.stop)
        grammar = grammar_for(constraint, self._module.json_schema_to_grammar)
        if grammar is not None:
            request["grammar"] = grammar
        elif constraint.json_schema is not None:
            request["json_schema"] = constraint.json_schema
        return request

    def complete(
        self, prompt: str, sampling: Sampling, constraint: Constraint, on_text: OnText | None
    ) -> Completion:
        request = self._request(prompt, sampling, constraint)
        with self._lock:
            if on_text is None:
                return _xllama_completion(self._server.handle_completions(request))
            request["stream"] = True
            pieces: list[str] = []
            last: dict[str, Any] = {}
            failure: list[dict[str, Any]] = []

            def receive(chunk: dict[str, Any]) -> bool:
                if "error" in chunk:
                    failure.append(chunk)
                    return True
                last.clear()
                last.update(chunk)
                delta = chunk["choices"][0].get("text") or ""
                if delta:
                    pieces.append(delta)
                    return bool(on_text(delta))
                return False

            self._server.handle_completions(request, receive)
        if failure:
            raise _error(failure[0])
        completion = _xllama_completion(
            {**last, "choices": [{**last.get("choices", [{}])[0], "text": "".join(pieces)}]}
        )
        return completion


def _xllama_completion(result: dict[str, Any]) -> Completion:
    if "error" in result or "choices" not in result:
        raise _error(result)
    choice = result["choices"][0]
    usage = result.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    return Completion(
        text=choice.get("text") or "",
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        finish_reason=choice.get("finish_reason") or "stop",
        cached_tokens=int(details.get("cached_tokens", 0)),
        timings=dict(result.get("timings") or {}),
    )


_layout_lock = threading.Lock()


@contextmanager
def _plain_weight_layout(llama_cpp: Any) -> Iterator[None]:
    """Loads weights without llama.cpp's extra buffer types (repacked layouts).

    ``Llama`` takes its model parameters from ``llama_model_default_params()`` and has no
    argument for ``use_extra_bufts``; a llama-cpp-python built natively on a CPU with AMX
    repacks this model's weights for AMX and then crashes (SIGSEGV) in its first decode.
    The plain CPU layout is what the xllamacpp wheel runs as well.
    """
    bindings: Any = getattr(llama_cpp, "llama_cpp", None)
    defaults = getattr(bindings, "llama_model_default_params", None)
    if defaults is None or not hasattr(defaults(), "use_extra_bufts"):
        yield
        return

    def plain() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    with _layout_lock:
        bindings.llama_model_default_params = plain
        try:
            yield
        finally:
            bindings.llama_model_default_params = defaults


class LlamaCppPythonRuntime:
    """llama.cpp through ``llama-cpp-python`` (``Llama.create_completion``)."""

    backend = "llama-cpp-python"

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int) -> None:
        import llama_cpp
        from llama_cpp import llama_grammar

        self._grammars = llama_grammar
        with _plain_weight_layout(llama_cpp):
            self._llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                verbose=False,
            )
        # Free the model before interpreter teardown, which would leave Llama.__del__
        # calling into already-unloaded bindings (a TypeError printed at exit).
        close = getattr(self._llama, "close", None)
        if close is not None:
            atexit.register(close)
        self._lock = threading.Lock()

    def _gbnf(self, schema: dict[str, Any]) -> str:
        return str(self._grammars.json_schema_to_gbnf(json.dumps(schema)))

    def _grammar(self, constraint: Constraint) -> Any:
        grammar = grammar_for(constraint, self._gbnf)
        if grammar is None and constraint.json_schema is not None:
            grammar = self._gbnf(constraint.json_schema)
        if grammar is None:
            return None
        return self._grammars.LlamaGrammar.from_string(grammar, verbose=False)

    def complete(
        self, prompt: str, sampling: Sampling, constraint: Constraint, on_text: OnText | None
    ) -> Completion:
        kwargs: dict[str, Any] = {
            "max_tokens": sampling.max_tokens,
            "temperature": sampling.temperature,
            "grammar": self._grammar(constraint),
            "stop": list(sampling.stop) or None,
        }
        if sampling.top_p is not None:
            kwargs["top_p"] = sampling.top_p
        if sampling.top_k is not None:
            kwargs["top_k"] = sampling.top_k
        if sampling.seed is not None:
            kwargs["seed"] = sampling.seed
        with self._lock:
            try:
                if on_text is None:
                    result = self._llama.create_completion(prompt, **kwargs)
                    choice = result["choices"][0]
                    usage = result.get("usage") or {}
                    return Completion(
                        text=choice.get("text") or "",
                        prompt_tokens=int(usage.get("prompt_tokens", 0)),
                        completion_tokens=int(usage.get("completion_tokens", 0)),
                        finish_reason=choice.get("finish_reason") or "stop",
                    )
                pieces: list[str] = []
                finish = "stop"
                for chunk in self._llama.create_completion(prompt, stream=True, **kwargs):
                    choice = chunk["choices"][0]
                    delta = choice.get("text") or ""
                    finish = choice.get("finish_reason") or finish
                    if delta:
                        pieces.append(delta)
                        if on_text(delta):
                            break
            except ValueError as error:  # e.g. the prompt exceeds the context window
                raise BadRequestError(f"Local model error: {error}") from error
            text = "".join(pieces)
            prompt_tokens = len(self._llama.tokenize(prompt.encode(), special=True))
            completion_tokens = len(self._llama.tokenize(text.encode(), add_bos=False))
        return Completion(text, prompt_tokens, completion_tokens, finish)


_loaded: dict[tuple[str, str, int, int], Runtime] = {}
_load_lock = threading.Lock()


def default_threads() -> int:
    """Threads per process: ``$PYADK_LOCAL_THREADS``, else half the cores, at most 4.

    On a 2-core machine that is 1, so two model processes do not fight over the cores.
    """
    configured = os.environ.get("PYADK_LOCAL_THREADS")
    if configured:
        return max(1, int(configured))
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def load_runtime(path: Path, *, backend: str, n_ctx: int, n_threads: int) -> Runtime:
    """The runtime for ``path``, loaded on first use and then shared in this process."""
    key = (backend, str(path), n_ctx, n_threads)
    with _load_lock:
        runtime = _loaded.get(key)
        if runtime is None:
            # Idle OpenMP workers must sleep, not spin, or concurrent processes starve.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            factory = XllamacppRuntime if backend == "xllamacpp" else LlamaCppPythonRuntime
            runtime = factory(path, n_ctx=n_ctx, n_threads=n_threads)
            _loaded[key] = runtime
        return runtime


def loaded_runtimes() -> list[Runtime]:
    """The runtimes loaded in this process (for diagnostics and benchmarks)."""
    with _load_lock:
        return list(_loaded.values())
