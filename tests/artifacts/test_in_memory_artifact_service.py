"""Tests of InMemoryArtifactService."""

from __future__ import annotations

from typing import TypedDict

import pytest
from pydantic import BaseModel, ConfigDict

from pyadk import types
from pyadk.artifacts import BaseArtifactService, InMemoryArtifactService

APP, USER, SESSION = "app", "u1", "s1"


class _Ids(TypedDict):
    app_name: str
    user_id: str
    session_id: str


def _ids(session_id: str = SESSION, user_id: str = USER, app_name: str = APP) -> _Ids:
    return {"app_name": app_name, "user_id": user_id, "session_id": session_id}


@pytest.fixture
def service() -> InMemoryArtifactService:
    return InMemoryArtifactService()


def test_is_a_base_artifact_service(service: InMemoryArtifactService) -> None:
    assert isinstance(service, BaseArtifactService)


async def test_versions_start_at_zero_and_increase(service: InMemoryArtifactService) -> None:
    v0 = await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="one"))
    v1 = await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="two"))
    other = await service.save_artifact(**_ids(), filename="b.txt", artifact=types.Part(text="x"))
    assert (v0, v1, other) == (0, 1, 0)


async def test_load_latest_and_specific_version(service: InMemoryArtifactService) -> None:
    for text in ("one", "two", "three"):
        await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text=text))

    latest = await service.load_artifact(**_ids(), filename="a.txt")
    assert latest is not None and latest.text == "three"
    for version, text in enumerate(("one", "two", "three")):
        part = await service.load_artifact(**_ids(), filename="a.txt", version=version)
        assert part is not None and part.text == text


async def test_bytes_artifact_round_trips(service: InMemoryArtifactService) -> None:
    part = types.Part.from_bytes(data=b"\x00\x01png", mime_type="image/png")
    await service.save_artifact(**_ids(), filename="img.png", artifact=part)
    loaded = await service.load_artifact(**_ids(), filename="img.png")
    assert loaded == part
    assert loaded is not None and loaded.inline_data is not None
    assert loaded.inline_data.data == b"\x00\x01png"


async def test_missing_returns_none(service: InMemoryArtifactService) -> None:
    assert await service.load_artifact(**_ids(), filename="nope.txt") is None
    await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="one"))
    assert await service.load_artifact(**_ids(), filename="a.txt", version=1) is None
    assert await service.load_artifact(**_ids(), filename="a.txt", version=-1) is None
    assert await service.load_artifact(**_ids("s2"), filename="a.txt") is None
    assert await service.load_artifact(**_ids(user_id="u2"), filename="a.txt") is None
    assert await service.load_artifact(**_ids(app_name="other"), filename="a.txt") is None


async def test_session_artifacts_are_not_shared(service: InMemoryArtifactService) -> None:
    await service.save_artifact(**_ids("s1"), filename="a.txt", artifact=types.Part(text="s1"))
    await service.save_artifact(**_ids("s2"), filename="a.txt", artifact=types.Part(text="s2"))

    s1 = await service.load_artifact(**_ids("s1"), filename="a.txt")
    s2 = await service.load_artifact(**_ids("s2"), filename="a.txt")
    assert s1 is not None and s1.text == "s1"
    assert s2 is not None and s2.text == "s2"
    assert await service.list_versions(**_ids("s1"), filename="a.txt") == [0]


async def test_user_scoped_artifacts_are_shared_across_sessions(
    service: InMemoryArtifactService,
) -> None:
    v0 = await service.save_artifact(
        **_ids("s1"), filename="user:profile", artifact=types.Part(text="from s1")
    )
    v1 = await service.save_artifact(
        **_ids("s2"), filename="user:profile", artifact=types.Part(text="from s2")
    )
    assert (v0, v1) == (0, 1)

    for session_id in ("s1", "s2", "s3"):
        part = await service.load_artifact(**_ids(session_id), filename="user:profile")
        assert part is not None and part.text == "from s2"
        assert await service.list_versions(**_ids(session_id), filename="user:profile") == [0, 1]
    first = await service.load_artifact(**_ids("s3"), filename="user:profile", version=0)
    assert first is not None and first.text == "from s1"

    # Not shared with another user or another app.
    assert await service.load_artifact(**_ids(user_id="u2"), filename="user:profile") is None
    assert await service.load_artifact(**_ids(app_name="other"), filename="user:profile") is None


async def test_list_artifact_keys_is_sorted_and_includes_user_keys(
    service: InMemoryArtifactService,
) -> None:
    assert await service.list_artifact_keys(**_ids()) == []
    for filename in ("zeta.txt", "user:prefs", "alpha.txt"):
        await service.save_artifact(**_ids(), filename=filename, artifact=types.Part(text="x"))
    await service.save_artifact(**_ids(), filename="alpha.txt", artifact=types.Part(text="y"))
    await service.save_artifact(**_ids("s2"), filename="other.txt", artifact=types.Part(text="x"))
    await service.save_artifact(
        **_ids(user_id="u2"), filename="user:theirs", artifact=types.Part(text="x")
    )

    assert await service.list_artifact_keys(**_ids()) == ["alpha.txt", "user:prefs", "zeta.txt"]
    assert await service.list_artifact_keys(**_ids("s2")) == ["other.txt", "user:prefs"]
    assert await service.list_artifact_keys(**_ids(user_id="u2")) == ["user:theirs"]


async def test_delete_removes_all_versions(service: InMemoryArtifactService) -> None:
    for text in ("one", "two"):
        await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text=text))
    await service.save_artifact(**_ids(), filename="b.txt", artifact=types.Part(text="b"))

    await service.delete_artifact(**_ids(), filename="a.txt")

    assert await service.load_artifact(**_ids(), filename="a.txt") is None
    assert await service.list_versions(**_ids(), filename="a.txt") == []
    assert await service.list_artifact_keys(**_ids()) == ["b.txt"]
    # Saving again starts a fresh history.
    assert (
        await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="new"))
        == 0
    )


async def test_delete_missing_is_a_no_op(service: InMemoryArtifactService) -> None:
    await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="one"))
    await service.delete_artifact(**_ids(), filename="missing.txt")
    await service.delete_artifact(**_ids("s2"), filename="a.txt")
    assert await service.list_versions(**_ids(), filename="a.txt") == [0]


async def test_delete_user_scoped_from_any_session(service: InMemoryArtifactService) -> None:
    await service.save_artifact(**_ids("s1"), filename="user:k", artifact=types.Part(text="v"))
    await service.delete_artifact(**_ids("s2"), filename="user:k")
    assert await service.load_artifact(**_ids("s1"), filename="user:k") is None
    assert await service.list_artifact_keys(**_ids("s1")) == []


async def test_list_versions(service: InMemoryArtifactService) -> None:
    assert await service.list_versions(**_ids(), filename="a.txt") == []
    for _ in range(3):
        await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="x"))
    assert await service.list_versions(**_ids(), filename="a.txt") == [0, 1, 2]


async def test_saved_artifact_is_isolated_from_caller_mutation(
    service: InMemoryArtifactService,
) -> None:
    part = types.Part.from_function_call(name="f", args={"items": [1, 2]})
    await service.save_artifact(**_ids(), filename="call.json", artifact=part)

    assert part.function_call is not None and part.function_call.args is not None
    part.function_call.args["items"].append(3)
    part.function_call.name = "changed"

    loaded = await service.load_artifact(**_ids(), filename="call.json")
    assert loaded is not None and loaded.function_call is not None
    assert loaded.function_call.name == "f"
    assert loaded.function_call.args == {"items": [1, 2]}


async def test_loaded_artifact_is_a_copy(service: InMemoryArtifactService) -> None:
    await service.save_artifact(
        **_ids(), filename="call.json", artifact=types.Part.from_function_call(name="f", args={})
    )
    first = await service.load_artifact(**_ids(), filename="call.json")
    assert first is not None and first.function_call is not None
    assert first.function_call.args is not None
    first.function_call.args["injected"] = True
    first.text = "mutated"

    second = await service.load_artifact(**_ids(), filename="call.json", version=0)
    assert second is not None and second.function_call is not None
    assert second.function_call.args == {}
    assert second.text is None


@pytest.mark.parametrize("filename", ["", "   ", "user:", "user:  "])
async def test_empty_filename_is_rejected(service: InMemoryArtifactService, filename: str) -> None:
    with pytest.raises(ValueError, match="filename must not be empty"):
        await service.save_artifact(**_ids(), filename=filename, artifact=types.Part(text="x"))
    with pytest.raises(ValueError, match="filename must not be empty"):
        await service.load_artifact(**_ids(), filename=filename)
    assert await service.list_artifact_keys(**_ids()) == []


@pytest.mark.parametrize(
    "artifact",
    [
        "plain text",
        b"bytes",
        {"text": "a dict"},
        None,
        types.Content(role="user", parts=[types.Part(text="x")]),
    ],
)
async def test_non_part_artifact_is_rejected(
    service: InMemoryArtifactService, artifact: object
) -> None:
    with pytest.raises(TypeError, match=r"'report\.txt'"):
        await service.save_artifact(**_ids(), filename="report.txt", artifact=artifact)  # type: ignore[arg-type]
    assert await service.list_artifact_keys(**_ids()) == []


class _ForeignBlob(BaseModel):
    """Stands in for google.genai.types.Blob (google-genai is optional)."""

    model_config = ConfigDict(extra="forbid")
    mime_type: str | None = None
    data: bytes | None = None


def _foreign_part_class() -> type[BaseModel]:
    class Part(BaseModel):
        """Stands in for google.genai.types.Part."""

        text: str | None = None
        inline_data: _ForeignBlob | None = None
        video_metadata: dict[str, str] | None = None

    return Part


async def test_foreign_part_is_converted(service: InMemoryArtifactService) -> None:
    foreign_part = _foreign_part_class()
    foreign = foreign_part(text="hi", inline_data=_ForeignBlob(mime_type="text/plain", data=b"hi"))
    assert await service.save_artifact(**_ids(), filename="f.txt", artifact=foreign) == 0  # type: ignore[arg-type]

    loaded = await service.load_artifact(**_ids(), filename="f.txt")
    assert isinstance(loaded, types.Part)
    assert loaded.text == "hi"
    assert loaded.inline_data == types.Blob(mime_type="text/plain", data=b"hi")


async def test_foreign_part_fields_pyadk_does_not_model_are_dropped(
    service: InMemoryArtifactService,
) -> None:
    foreign = _foreign_part_class()(text="clip", video_metadata={"fps": "30"})
    await service.save_artifact(**_ids(), filename="clip.mp4", artifact=foreign)  # type: ignore[arg-type]
    loaded = await service.load_artifact(**_ids(), filename="clip.mp4")
    assert loaded == types.Part(text="clip")


async def test_foreign_non_part_model_is_rejected(service: InMemoryArtifactService) -> None:
    with pytest.raises(TypeError, match=r"'blob\.bin'"):
        await service.save_artifact(
            **_ids(),
            filename="blob.bin",
            artifact=_ForeignBlob(data=b"x"),  # type: ignore[arg-type]
        )


async def test_close_is_a_no_op(service: InMemoryArtifactService) -> None:
    await service.save_artifact(**_ids(), filename="a.txt", artifact=types.Part(text="x"))
    await service.close()
    assert await service.list_versions(**_ids(), filename="a.txt") == [0]
