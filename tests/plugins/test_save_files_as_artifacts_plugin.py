"""SaveFilesAsArtifactsPlugin: files of a user message become artifacts, via a Runner."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.plugins.save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import ScriptedModel, TestRunner

PNG = b"\x89PNG\r\n"


def _file(name: str | None = None, data: bytes = PNG) -> types.Part:
    return types.Part(inline_data=types.Blob(mime_type="image/png", data=data, display_name=name))


async def _keys(runner: TestRunner, session_id: str = "test_session") -> list[str]:
    return await runner.artifact_service.list_artifact_keys(
        app_name=runner.app_name, user_id=runner.user_id, session_id=session_id
    )


async def test_files_are_saved_and_replaced_by_a_note_the_model_sees() -> None:
    model = ScriptedModel(["I see a cat"])
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[SaveFilesAsArtifactsPlugin()])
    events = await runner.run(types.UserContent([types.Part(text="look"), _file("cat.png")]))

    assert await _keys(runner) == ["cat.png"]
    saved = await runner.artifact_service.load_artifact(
        app_name="test_app", user_id="test_user", session_id="test_session", filename="cat.png"
    )
    assert saved.inline_data.data == PNG
    sent = model.requests[0].contents[-1].parts
    assert [p.text for p in sent] == ["look", '[Uploaded Artifact: "cat.png"]']
    stored = (await runner.session()).events[0]
    assert stored.author == "user" and stored.content.parts[1].inline_data is None
    # The saved version is recorded in the first agent event's artifact_delta.
    assert events[0].actions.artifact_delta == {"cat.png": 0}


async def test_unnamed_files_get_a_generated_name_and_names_get_new_versions() -> None:
    runner = TestRunner(
        LlmAgent(name="a", model=ScriptedModel(["ok", "ok"])),
        plugins=[SaveFilesAsArtifactsPlugin()],
    )
    events = await runner.run(types.UserContent([_file(), _file("cat.png")]))
    invocation_id = events[0].invocation_id
    assert events[0].actions.artifact_delta == {f"artifact_{invocation_id}_0": 0, "cat.png": 0}
    events = await runner.run(types.UserContent([_file("cat.png")]))
    assert events[0].actions.artifact_delta == {"cat.png": 1}


async def test_a_user_prefixed_name_is_shared_by_the_users_sessions() -> None:
    runner = TestRunner(
        LlmAgent(name="a", model=ScriptedModel(["ok"])), plugins=[SaveFilesAsArtifactsPlugin()]
    )
    await runner.run(types.UserContent([_file("user:avatar.png")]))
    assert await _keys(runner, "another_session") == ["user:avatar.png"]


async def test_a_file_over_20_mb_is_refused_with_a_note() -> None:
    model = ScriptedModel(["ok"])
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[SaveFilesAsArtifactsPlugin()])
    await runner.run(types.UserContent([_file("huge.bin", b"\0" * (20 * 2**20 + 1))]))
    assert await _keys(runner) == []
    (part,) = model.requests[0].contents[-1].parts
    assert part.text.startswith("[Upload Error: File huge.bin (20.00 MB) exceeds the maximum")


async def test_a_file_that_cannot_be_saved_stays_in_the_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Failing(InMemoryArtifactService):
        async def save_artifact(self, **kwargs: Any) -> int:
            raise OSError("disk full")

    model = ScriptedModel(["ok"])
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model),
        session_service=InMemorySessionService(),
        artifact_service=Failing(),
        plugins=[SaveFilesAsArtifactsPlugin()],
        auto_create_session=True,
    )
    message = types.UserContent([_file("cat.png")])
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]
    assert events[-1].text == "ok"
    assert model.requests[0].contents[-1].parts[0].inline_data.data == PNG
    assert any("could not save file 'cat.png'" in r.message for r in caplog.records)


async def test_without_an_artifact_service_a_file_fails_the_turn_clearly() -> None:
    model = ScriptedModel(["text only is fine"])
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model),
        session_service=InMemorySessionService(),
        plugins=[SaveFilesAsArtifactsPlugin()],
        auto_create_session=True,
    )

    async def send(*parts: types.Part) -> list[Any]:
        message = types.UserContent(list(parts))
        return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]

    assert (await send(types.Part(text="hi")))[-1].text == "text only is fine"
    with pytest.raises(RuntimeError, match=r"save_files_as_artifacts_plugin.*artifact_service="):
        await send(_file("cat.png"))


@pytest.mark.parametrize(
    ("uri", "attach", "expected"),
    [
        ("https://files.example/cat.png", True, "https://files.example/cat.png"),
        ("memory://apps/x/cat.png", True, None),
        ("https://files.example/cat.png", False, None),
    ],
)
async def test_a_file_reference_follows_when_the_model_can_fetch_the_artifact(
    uri: str, attach: bool, expected: str | None
) -> None:
    class WithUris(InMemoryArtifactService):
        async def get_artifact_version(self, **kwargs: Any) -> Any:
            return SimpleNamespace(canonical_uri=uri, mime_type="image/png")

    model = ScriptedModel(["ok"])
    runner = TestRunner(
        LlmAgent(name="a", model=model),
        plugins=[SaveFilesAsArtifactsPlugin(attach_file_reference=attach)],
    )
    runner.artifact_service = WithUris()
    await runner.run(types.UserContent([_file("cat.png")]))
    parts = model.requests[0].contents[-1].parts
    references = [p.file_data for p in parts if p.file_data is not None]
    if expected is None:
        assert references == []
    else:
        assert [(r.file_uri, r.mime_type, r.display_name) for r in references] == [
            (expected, "image/png", "cat.png")
        ]


async def test_with_the_run_config_flag_too_each_file_is_saved_once() -> None:
    model = ScriptedModel(["ok"])
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[SaveFilesAsArtifactsPlugin()])
    config = RunConfig(save_input_blobs_as_artifacts=True)
    await runner.run(types.UserContent([_file("cat.png")]), run_config=config)
    assert await _keys(runner) == ["cat.png"]


async def test_the_run_config_flag_keeps_its_names_and_note() -> None:
    model = ScriptedModel(["ok"])
    runner = TestRunner(LlmAgent(name="a", model=model))
    config = RunConfig(save_input_blobs_as_artifacts=True)
    events = await runner.run(types.UserContent([_file("cat.png")]), run_config=config)
    name = f"artifact_{events[0].invocation_id}_0"
    assert await _keys(runner) == [name]
    (part,) = model.requests[0].contents[-1].parts
    assert part.text == f"Uploaded file: {name}. It is saved into artifacts"
