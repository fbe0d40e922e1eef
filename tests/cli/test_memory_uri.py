"""``--memory-uri`` (google-adk's ``--memory_service_uri``): memory:// or a SQLite file
that agents write with ``callback_context.add_session_to_memory()`` and read back with
``load_memory`` in a later session, across processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyadk.cli.errors import CliError
from pyadk.cli.services import memory_service_for
from pyadk.memory import InMemoryMemoryService, SqliteMemoryService
from pyadk.memory.uri import memory_service_from_uri

NOTES = """
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, function_call
from pyadk.tools.memory_tools import load_memory


def reply(request):
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        memories = last.function_response.response["memories"]
        return "Recalled: " + " | ".join(m["text"] for m in memories)
    text = last.text or ""
    if text.startswith("recall"):
        return function_call("load_memory", {"query": text.split(" ", 1)[1]})
    return "Noted."


async def remember(callback_context):
    await callback_context.add_session_to_memory()


root_agent = LlmAgent(
    name="notes",
    model=FunctionModel(reply),
    tools=[load_memory],
    after_agent_callback=remember,
)
"""


async def test_memory_uris_name_their_services(tmp_path: Path) -> None:
    assert isinstance(memory_service_from_uri("memory://"), InMemoryMemoryService)
    service = memory_service_from_uri(f"sqlite:///{tmp_path / 'memory.db'}")
    assert isinstance(service, SqliteMemoryService)
    await service.close()
    assert isinstance(memory_service_for(None), InMemoryMemoryService)


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("rag://corpus", r"The rag:// memory service .* is not available"),
        ("agentengine://123", r"The agentengine:// memory service .* is not available"),
        ("redis://host", "Unknown memory service URI scheme 'redis'"),
        ("memory.db", "Not a memory service URI"),
    ],
)
def test_unusable_memory_uris_are_refused_naming_the_option(uri: str, message: str) -> None:
    with pytest.raises(CliError, match=f"^--memory-uri: {message}") as raised:
        memory_service_for(uri)
    assert "memory:// or sqlite:///path.db" in str(raised.value)


def test_run_recalls_an_earlier_session_from_the_sqlite_memory(run_cli, write_agent, tmp_path):
    write_agent("notes", NOTES)
    uri = f"sqlite:///{tmp_path / 'memory.db'}"

    def replay(*queries: str) -> str:
        path = tmp_path / "replay.json"
        path.write_text(json.dumps({"state": {}, "queries": list(queries)}))
        return str(path)

    first = run_cli("run", "notes", "--replay", replay("the vet is on Tuesday"),
                    "--memory_service_uri", uri)  # fmt: skip
    assert first.returncode == 0, first.stderr
    second = run_cli("run", "notes", "--replay", replay("recall vet"), "--memory-uri", uri)
    assert second.returncode == 0, second.stderr
    assert "[notes]: Recalled: the vet is on Tuesday" in second.stdout  # another process


def test_a_bad_memory_uri_stops_the_command(run_cli, write_agent) -> None:
    write_agent("notes", NOTES)
    result = run_cli("run", "notes", "--memory-uri", "rag://corpus")
    assert result.returncode != 0
    assert "--memory-uri: The rag:// memory service" in result.stderr
