"""Runtime selection, loading once, thread settings, error mapping, and the
llama-cpp-python adapter (against a stand-in ``llama_cpp`` module)."""

from __future__ import annotations

import sys
import types as pytypes

import pytest

from pyadk.errors import BadRequestError, ModelError
from pyadk.models.local import _runtime
from pyadk.models.local._runtime import (
    Constraint,
    LlamaCppPythonRuntime,
    RuntimeUnavailableError,
    Sampling,
    _error,
    _xllama_completion,
    choose_backend,
    default_threads,
    load_runtime,
)


def test_choose_backend(monkeypatch):
    monkeypatch.delenv("PYADK_LOCAL_BACKEND", raising=False)
    monkeypatch.setattr(_runtime, "available_backends", lambda: ["llama-cpp-python"])
    assert choose_backend() == "llama-cpp-python"
    with pytest.raises(RuntimeUnavailableError, match="'xllamacpp' backend is not installed"):
        choose_backend("xllamacpp")
    with pytest.raises(ValueError, match="Unknown local backend 'vllm'"):
        choose_backend("vllm")
    monkeypatch.setattr(_runtime, "available_backends", lambda: [])
    with pytest.raises(RuntimeUnavailableError, match=r"pip install 'pyadk\[local\]'"):
        choose_backend()


def test_the_environment_chooses_the_backend_for_auto(monkeypatch):
    monkeypatch.setattr(_runtime, "available_backends", lambda: ["xllamacpp", "llama-cpp-python"])
    monkeypatch.setenv("PYADK_LOCAL_BACKEND", "llama-cpp-python")
    assert choose_backend() == "llama-cpp-python"
    assert choose_backend("xllamacpp") == "xllamacpp"  # an explicit backend wins
    monkeypatch.setenv("PYADK_LOCAL_BACKEND", "")
    assert choose_backend() == "xllamacpp"
    monkeypatch.setattr(_runtime, "available_backends", lambda: ["xllamacpp"])
    monkeypatch.setenv("PYADK_LOCAL_BACKEND", "llama-cpp-python")
    with pytest.raises(RuntimeUnavailableError, match="'llama-cpp-python' backend is not"):
        choose_backend()
    monkeypatch.setenv("PYADK_LOCAL_BACKEND", "ollama")
    with pytest.raises(ValueError, match="Unknown local backend 'ollama'"):
        choose_backend()


def test_threads_default_to_half_the_cores(monkeypatch):
    monkeypatch.delenv("PYADK_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(_runtime.os, "cpu_count", lambda: 2)
    assert default_threads() == 1
    monkeypatch.setattr(_runtime.os, "cpu_count", lambda: 16)
    assert default_threads() == 4
    monkeypatch.setenv("PYADK_LOCAL_THREADS", "3")
    assert default_threads() == 3


def test_a_runtime_is_loaded_once_per_process_with_passive_omp(monkeypatch, tmp_path):
    made = []

    class Fake:
        backend = "xllamacpp"

        def __init__(self, path, *, n_ctx, n_threads):
            made.append((path, n_ctx, n_threads, _runtime.os.environ.get("OMP_WAIT_POLICY")))

    monkeypatch.setattr(_runtime, "XllamacppRuntime", Fake)
    monkeypatch.setattr(_runtime, "_loaded", {})
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    path = tmp_path / "m.gguf"
    first = load_runtime(path, backend="xllamacpp", n_ctx=512, n_threads=1)
    assert load_runtime(path, backend="xllamacpp", n_ctx=512, n_threads=1) is first
    load_runtime(path, backend="xllamacpp", n_ctx=1024, n_threads=1)
    assert made == [(path, 512, 1, "PASSIVE"), (path, 1024, 1, "PASSIVE")]


def test_errors_map_to_typed_model_errors():
    too_long = {"error": {"code": 400, "message": "request exceeds the context size"}}
    error = _error(too_long)
    assert isinstance(error, BadRequestError) and error.status_code == 400
    assert str(error) == "Local model error: request exceeds the context size"
    crash = _error({"code": 500, "message": "boom"})
    assert type(crash) is ModelError and crash.status_code == 500
    with pytest.raises(BadRequestError):
        _xllama_completion(too_long)


def test_xllamacpp_result_parsing():
    completion = _xllama_completion(
        {
            "choices": [{"text": "hi", "finish_reason": "length"}],
            "usage": {
                "prompt_tokens": 12,
                "completion_tokens": 3,
                "prompt_tokens_details": {"cached_tokens": 11},
            },
            "timings": {"predicted_per_second": 40.0},
        }
    )
    assert (completion.text, completion.finish_reason) == ("hi", "length")
    assert (completion.prompt_tokens, completion.completion_tokens) == (12, 3)
    assert completion.cached_tokens == 11 and completion.timings["predicted_per_second"] == 40.0


class _FakeLlama:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.calls = []
        # What llama-cpp-python's Llama does: its model parameters start from the defaults.
        self.model_params = sys.modules["llama_cpp"].llama_cpp.llama_model_default_params()
        self.closed = False

    def close(self):
        self.closed = True

    def create_completion(self, prompt, stream=False, **kwargs):
        self.calls.append((prompt, stream, kwargs))
        if "TOO LONG" in prompt:
            raise ValueError("Requested tokens exceed context window")
        if not stream:
            return {
                "choices": [{"text": "done", "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1},
            }
        chunks = ["He", "llo", "!"]
        return iter(
            {"choices": [{"text": c, "finish_reason": "stop" if i == 2 else None}]}
            for i, c in enumerate(chunks)
        )

    def tokenize(self, data, add_bos=True, special=False):
        return list(data)


@pytest.fixture
def fake_llama_cpp(monkeypatch):
    module = pytypes.ModuleType("llama_cpp")
    grammar = pytypes.ModuleType("llama_cpp.llama_grammar")
    module.Llama = _FakeLlama
    module.llama_grammar = grammar
    module.llama_cpp = pytypes.SimpleNamespace(
        llama_model_default_params=lambda: pytypes.SimpleNamespace(use_extra_bufts=True)
    )
    grammar.json_schema_to_gbnf = lambda schema: f"root ::= CALL{len(schema)}"
    grammar.LlamaGrammar = pytypes.SimpleNamespace(from_string=lambda text, verbose: ("G", text))
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_grammar", grammar)
    return module


def test_llama_cpp_python_runtime(fake_llama_cpp, tmp_path):
    runtime = LlamaCppPythonRuntime(tmp_path / "m.gguf", n_ctx=2048, n_threads=1)
    llama = runtime._llama
    assert llama.kwargs == {
        "model_path": str(tmp_path / "m.gguf"),
        "n_ctx": 2048,
        "n_threads": 1,
        "n_threads_batch": 1,
        "verbose": False,
    }
    plain = runtime.complete("p", Sampling(max_tokens=9, stop=("<|im_end|>",)), Constraint(), None)
    assert (plain.text, plain.prompt_tokens, plain.completion_tokens) == ("done", 5, 1)
    assert llama.calls[0][2] == {
        "max_tokens": 9,
        "temperature": 0.0,
        "grammar": None,
        "stop": ["<|im_end|>"],
    }

    seen: list[str] = []
    constraint = Constraint({"type": "object"}, allow_text=True)
    streamed = runtime.complete("prompt", Sampling(), constraint, lambda d: seen.append(d) or False)
    assert seen == ["He", "llo", "!"] and streamed.text == "Hello!"
    assert (streamed.prompt_tokens, streamed.completion_tokens) == (6, 6)
    _, gbnf = llama.calls[1][2]["grammar"]
    assert gbnf.startswith('root ::= pyadk-call | "<tool_call>\\n" pyadk-call')
    assert "pyadk-call ::= CALL18" in gbnf

    stopped = runtime.complete("prompt", Sampling(), Constraint(), lambda d: True)
    assert stopped.text == "He"

    json_only = Constraint({"type": "object"}, allow_text=False)
    runtime.complete("p", Sampling(), json_only, None)
    assert llama.calls[-1][2]["grammar"] == ("G", "root ::= CALL18")

    with pytest.raises(BadRequestError, match="exceed context window"):
        runtime.complete("TOO LONG", Sampling(), Constraint(), lambda d: False)


def test_llama_cpp_python_loads_weights_without_repacked_layouts(fake_llama_cpp, tmp_path):
    # A native llama-cpp-python build on an AMX CPU repacks the weights for AMX and then
    # crashes in its first decode; the plain CPU layout (what xllamacpp runs) works.
    runtime = LlamaCppPythonRuntime(tmp_path / "m.gguf", n_ctx=512, n_threads=1)
    assert runtime._llama.model_params.use_extra_bufts is False
    # Only that load is affected: the bindings' defaults are restored afterwards.
    assert fake_llama_cpp.llama_cpp.llama_model_default_params().use_extra_bufts is True


def test_llama_cpp_python_models_are_closed_at_exit(fake_llama_cpp, tmp_path, monkeypatch):
    registered = []
    monkeypatch.setattr(_runtime.atexit, "register", registered.append)
    runtime = LlamaCppPythonRuntime(tmp_path / "m.gguf", n_ctx=512, n_threads=1)
    assert len(registered) == 1
    registered[0]()
    assert runtime._llama.closed
