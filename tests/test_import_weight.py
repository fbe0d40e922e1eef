"""Importing the core stays light: the modules an agent may never use load on first use.

Benchmark j measures the import time and memory of these two imports; these checks keep
the regressions it found out: a pydantic model whose schema was built at import (that
loads pydantic's plugin loader and, through it, importlib.metadata and email parsing),
the web-page fetcher and the tool thread pool loaded by every program.
"""

from __future__ import annotations

import subprocess
import sys

NOT_LOADED_BY_IMPORT = (
    "pydantic.plugin._loader",
    "importlib.metadata",
    "pyadk.tools._web_page_loader",
    "pyadk.tools._url_validator",
    "concurrent.futures.thread",
    "pyadk.flows.live_flow",
    "pyadk.plugins.logging_plugin",
)


def loaded_after(code: str) -> list[str]:
    report = f"print('\\n'.join(m for m in {NOT_LOADED_BY_IMPORT!r} if m in sys.modules))"
    script = f"import sys\n{code}\n{report}"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_importing_an_agent_and_a_runner_loads_nothing_an_agent_may_never_use() -> None:
    assert (
        loaded_after("from pyadk.agents import LlmAgent\nfrom pyadk.runners import InMemoryRunner")
        == []
    )


def test_the_tools_package_exports_load_web_page_without_loading_the_fetcher() -> None:
    loaded = loaded_after(
        "from pyadk.tools import load_web_page, make_load_web_page\n"
        "assert callable(load_web_page) and load_web_page.__name__ == 'load_web_page'\n"
        "make_load_web_page(allowed_hosts=['127.0.0.1'])"  # builds a loader: loads it
    )
    assert loaded == ["pyadk.tools._web_page_loader", "pyadk.tools._url_validator"]
