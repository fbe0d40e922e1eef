"""An artifact service that stores a nested agent's artifacts in the caller's session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk import types
from pyadk.artifacts.base_artifact_service import BaseArtifactService

if TYPE_CHECKING:
    from pyadk.tools.tool_context import ToolContext


class ForwardingArtifactService(BaseArtifactService):
    """Forwards every call to the artifact service of the tool call's own session."""

    def __init__(self, tool_context: ToolContext) -> None:
        self.tool_context = tool_context
        self._ctx = tool_context.invocation_context

    def _parent(self) -> BaseArtifactService:
        service = self._ctx.artifact_service
        if service is None:
            raise ValueError("The calling agent's Runner has no artifact_service.")
        return service

    async def save_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str, artifact: types.Part
    ) -> int:
        return await self.tool_context.save_artifact(filename, artifact)

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        version: int | None = None,
    ) -> types.Part | None:
        return await self.tool_context.load_artifact(filename, version)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        return await self.tool_context.list_artifacts()

    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        await self._parent().delete_artifact(
            app_name=self._ctx.app_name,
            user_id=self._ctx.user_id,
            session_id=self._ctx.session.id,
            filename=filename,
        )

    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        return await self._parent().list_versions(
            app_name=self._ctx.app_name,
            user_id=self._ctx.user_id,
            session_id=self._ctx.session.id,
            filename=filename,
        )
