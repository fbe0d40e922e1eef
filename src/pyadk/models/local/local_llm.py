"""LocalLlm: the embedded model (Qwen2.5-Coder-0.5B-Instruct) run in-process, offline."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import ClassVar

from pyadk import types
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.local import _files
from pyadk.models.local._parse import PartialText, final_response
from pyadk.models.local._prompt import (
    STOP_SEQUENCES,
    answered_calls_prefill,
    messages_from_contents,
    render,
)
from pyadk.models.local._runtime import (
    Completion,
    Runtime,
    Sampling,
    choose_backend,
    default_threads,
    load_runtime,
)
from pyadk.models.local._schema import (
    OutputPlan,
    answer_instruction,
    call_key,
    latest_calls,
    plan_output,
)

DEFAULT_MODEL_NAME = "qwen2.5-coder-0.5b-instruct"
DEFAULT_MAX_OUTPUT_TOKENS = 1024

# Loaded runtimes by LocalLlm settings, so model objects stay plain (copyable) data.
_RUNTIMES: dict[tuple[str | None, str | None, str, int, int | None], Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


class LocalLlm(BaseLlm):
    """A GGUF model run in this process by llama.cpp: no network, no API key.

    By default it is the embedded Qwen2.5-Coder-0.5B-Instruct (Q4_K_M), assembled from the
    ``pyadk[local]`` packages and verified by sha256 on first use. ``model_path`` runs
    another GGUF file of the Qwen2.5 family (checked against ``sha256`` when given).

    The model is loaded once per process and shared by every LocalLlm with the same file
    and settings. Tool calls and response schemas are enforced by constrained decoding.
    Generation is greedy (temperature 0) unless the request sets a temperature.
    """

    model: str = DEFAULT_MODEL_NAME
    model_path: str | None = None
    """A GGUF file to run instead of the embedded model."""
    sha256: str | None = None
    """The expected sha256 of ``model_path`` (not checked when None)."""
    backend: str = "auto"
    """``xllamacpp``, ``llama-cpp-python``, or ``auto`` (the first installed)."""
    n_ctx: int = 8192
    """Context window in tokens."""
    n_threads: int | None = None
    """CPU threads; default ``$PYADK_LOCAL_THREADS`` or half the cores (at most 4)."""
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    """Output limit when the request does not set ``max_output_tokens``."""

    _supported: ClassVar[list[str]] = [r"local", r"qwen2\.5-coder-0\.5b-instruct.*"]

    def model_file(self) -> Path:
        """The verified GGUF file (assembling the embedded model on first use)."""
        if self.model_path is None:
            return _files.ensure_model_file()
        path = Path(self.model_path).expanduser()
        if not path.is_file():
            raise _files.ModelFileError(f"Model file {path} does not exist.")
        if self.sha256 is not None:
            _files.check_file(path, self.sha256, path.stat().st_size)
        return path

    def _settings(self) -> tuple[str | None, str | None, str, int, int | None]:
        return (self.model_path, self.sha256, self.backend, self.n_ctx, self.n_threads)

    def loaded(self) -> Runtime | None:
        """The runtime if this model's settings were loaded in this process, else None."""
        return _RUNTIMES.get(self._settings())

    def load(self) -> Runtime:
        """Loads the model (once per process; blocking). Called on first generation."""
        with _RUNTIMES_LOCK:
            runtime = _RUNTIMES.get(self._settings())
            if runtime is None:
                runtime = load_runtime(
                    self.model_file(),
                    backend=choose_backend(self.backend),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads or default_threads(),
                )
                _RUNTIMES[self._settings()] = runtime
            return runtime

    def build_prompt(
        self, llm_request: LlmRequest, exclude: frozenset[str] = frozenset()
    ) -> tuple[str, OutputPlan]:
        """The rendered prompt and the output plan for ``llm_request``.

        When the history ends with tool results, the assistant's turn starts with the
        calls they answer (see :func:`answered_calls_prefill`) and the answer may be JSON
        (a small model tends to answer tool results in JSON).
        """
        messages = messages_from_contents(llm_request.contents)
        prefill = answered_calls_prefill(messages)
        plan = plan_output(llm_request, exclude, json_text=bool(prefill))
        if not plan.tools:
            prefill = ""
        system = llm_request.system_instruction_text()
        if plan.answer_schema is not None:
            instruction = answer_instruction(plan.answer_schema)
            system = f"{system}\n\n{instruction}" if system else instruction
        return render(system, messages, plan.tools, prefill), plan

    def sampling(self, config: types.GenerateContentConfig) -> Sampling:
        """Generation settings from the request config (greedy by default)."""
        return Sampling(
            max_tokens=config.max_output_tokens or self.max_output_tokens,
            temperature=config.temperature if config.temperature is not None else 0.0,
            top_p=config.top_p,
            top_k=int(config.top_k) if config.top_k is not None else None,
            seed=config.seed,
            stop=(*STOP_SEQUENCES, *(config.stop_sequences or [])),
        )

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Generates one response, or partial text responses and then the final one.

        A small model tends to repeat the call it just made instead of using its result:
        when the output repeats one of the calls answered last (same name and arguments),
        it is generated once more with no function callable, so it answers. (Excluding
        only the repeated function lets the model, already committed to a call, switch to
        another tool with made-up arguments, and then back again, until the call limit.)
        """
        loaded = self.loaded()
        runtime = loaded if loaded is not None else await asyncio.to_thread(self.load)
        prompt, plan = self.build_prompt(llm_request)
        sampling = self.sampling(llm_request.config)
        version = Path(self.model_path or _files.QWEN_CODER_05B.file_name).stem
        answered = latest_calls(llm_request.contents)
        for retry in (False, True):
            completion: Completion | None = None
            # aclosing: a caller that stops reading stops the generation now, not when
            # the inner generator is finalized later.
            items = self._complete(runtime, prompt, plan, sampling, stream, version)
            async with aclosing(items):
                async for item in items:
                    if isinstance(item, Completion):
                        completion = item
                    else:
                        yield item
            assert completion is not None
            response = final_response(completion, plan, version)
            if retry or plan.forced or not _repeats_a_call(response, answered):
                yield response
                return
            prompt, plan = self.build_prompt(llm_request, exclude=frozenset(plan.callable_names))

    async def _complete(
        self,
        runtime: Runtime,
        prompt: str,
        plan: OutputPlan,
        sampling: Sampling,
        stream: bool,
        version: str,
    ) -> AsyncGenerator[LlmResponse | Completion, None]:
        """Partial responses while streaming, then the Completion."""
        if not stream:
            yield await asyncio.to_thread(runtime.complete, prompt, sampling, plan.constraint, None)
            return
        loop = asyncio.get_running_loop()
        deltas: asyncio.Queue[str | None] = asyncio.Queue()
        stop = threading.Event()

        def on_text(delta: str) -> bool:
            loop.call_soon_threadsafe(deltas.put_nowait, delta)
            return stop.is_set()

        future = loop.run_in_executor(
            None, runtime.complete, prompt, sampling, plan.constraint, on_text
        )
        future.add_done_callback(lambda _: deltas.put_nowait(None))
        partial = PartialText(plan)
        try:
            while (delta := await deltas.get()) is not None:
                text = partial.feed(delta)
                if text:
                    yield LlmResponse(
                        content=types.Content(role="model", parts=[types.Part(text=text)]),
                        partial=True,
                        model_version=version,
                    )
            yield await future
        finally:
            stop.set()


def _repeats_a_call(response: LlmResponse, answered: set[str]) -> bool:
    """True when ``response`` makes one of the ``answered`` calls again (same arguments)."""
    return any(
        call_key(part.function_call.name or "", part.function_call.args or {}) in answered
        for part in (response.content.parts or [] if response.content else [])
        if part.function_call is not None
    )
