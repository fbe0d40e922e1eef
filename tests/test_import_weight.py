"""Importing the core stays light: the modules an agent may never use load on first use.

Benchmark j measures the import time and memory of these two imports; these checks keep
the regressions it found out: a pydantic model whose schema was built at import (that
loads pydantic's plugin loader and, through it, importlib.metadata and email parsing),
the web-page fetcher and the tool thread pool loaded by every program.
"""

from __future__ import annotations

import inspect
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
    "ctypes",  # loaded by the first Runner (pyadk.utils.attribute_lookup)
    # agents, tools and live mode a program may never use: loaded on first access
    "pyadk.agents.sequential_agent",
    "pyadk.agents.parallel_agent",
    "pyadk.agents.loop_agent",
    "pyadk.agents.router_agent",
    "pyadk.agents.live_request_queue",
    "pyadk.models.base_llm_connection",
    "pyadk.tools.agent_tool",
    "pyadk.tools.memory_tools",
    "pyadk.tools.load_artifacts_tool",
    "pyadk.tools.exit_loop_tool",
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


def test_lazy_package_exports_are_the_classes_themselves() -> None:
    loaded = loaded_after(
        "import pyadk.agents as a, pyadk.tools as t, pyadk.models as m\n"
        "from pyadk.agents.sequential_agent import SequentialAgent\n"
        "from pyadk.tools.agent_tool import AgentTool\n"
        "assert a.SequentialAgent is SequentialAgent and t.AgentTool is AgentTool\n"
        "assert {'LoopAgent', 'LiveRequestQueue'} <= set(dir(a)) and 'exit_loop' in dir(t)\n"
        "assert t.exit_loop.__name__ == 'exit_loop'\n"
        "assert t.get_user_choice.name == 'get_user_choice'\n"
        "assert m.BaseLlmConnection.__name__ == 'BaseLlmConnection'"
    )
    assert "pyadk.agents.sequential_agent" in loaded and "pyadk.tools.agent_tool" in loaded


def test_content_models_are_defined_with_evaluated_annotations() -> None:
    # pydantic evaluates string annotations (``from __future__ import annotations``) once
    # per field when a class is created: about a tenth of the core's import time.
    from pyadk import types
    from pyadk.agents.run_config import RunConfig
    from pyadk.events.event import Event
    from pyadk.events.event_actions import EventActions
    from pyadk.models.llm_response import LlmResponse

    for model in (types.Part, types.GenerateContentConfig, RunConfig, LlmResponse, Event):
        own = inspect.get_annotations(model)
        assert own and not any(isinstance(a, str) for a in own.values()), model
    assert EventActions.model_fields["state_delta"].annotation is not None
