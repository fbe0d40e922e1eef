"""Routes: artifacts of a session (ADK-compatible paths; a Part as JSON)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request

from pyadk import types
from pyadk.server.context import ServerContext
from pyadk.server.routes_sessions import SESSIONS
from pyadk.server.security import require_user

ARTIFACTS = SESSIONS + "/{session_id}/artifacts"


def _part_json(part: types.Part | None, name: str, version: int | None) -> dict[str, Any]:
    if part is None:
        which = f" version {version}" if version is not None else ""
        raise HTTPException(status_code=404, detail=f"Artifact not found: {name!r}{which}.")
    return part.model_dump(mode="json", by_alias=True, exclude_none=True)


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    def check(request: Request, app_name: str, user_id: str) -> None:
        require_user(request, user_id)
        ctx.require_app(app_name)

    @router.get(ARTIFACTS)
    async def list_artifact_names(
        app_name: str, user_id: str, session_id: str, request: Request
    ) -> list[str]:
        check(request, app_name, user_id)
        return await ctx.artifact_service.list_artifact_keys(
            app_name=app_name, user_id=user_id, session_id=session_id
        )

    async def load(
        request: Request,
        app_name: str,
        user_id: str,
        session_id: str,
        artifact_name: str,
        version: int | None,
    ) -> dict[str, Any]:
        check(request, app_name, user_id)
        part = await ctx.artifact_service.load_artifact(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            filename=artifact_name,
            version=version,
        )
        return _part_json(part, artifact_name, version)

    @router.get(ARTIFACTS + "/{artifact_name}")
    async def load_artifact(
        app_name: str,
        user_id: str,
        session_id: str,
        artifact_name: str,
        request: Request,
        version: int | None = Query(default=None, ge=0),
    ) -> dict[str, Any]:
        return await load(request, app_name, user_id, session_id, artifact_name, version)

    @router.get(ARTIFACTS + "/{artifact_name}/versions")
    async def list_artifact_versions(
        app_name: str, user_id: str, session_id: str, artifact_name: str, request: Request
    ) -> list[int]:
        check(request, app_name, user_id)
        return await ctx.artifact_service.list_versions(
            app_name=app_name, user_id=user_id, session_id=session_id, filename=artifact_name
        )

    @router.get(ARTIFACTS + "/{artifact_name}/versions/{version_id}")
    async def load_artifact_version(
        app_name: str,
        user_id: str,
        session_id: str,
        artifact_name: str,
        version_id: int,
        request: Request,
    ) -> dict[str, Any]:
        return await load(request, app_name, user_id, session_id, artifact_name, version_id)

    @router.delete(ARTIFACTS + "/{artifact_name}")
    async def delete_artifact(
        app_name: str, user_id: str, session_id: str, artifact_name: str, request: Request
    ) -> None:
        check(request, app_name, user_id)
        await ctx.artifact_service.delete_artifact(
            app_name=app_name, user_id=user_id, session_id=session_id, filename=artifact_name
        )

    return router
