"""Routes: list apps, health, sessions CRUD (ADK-compatible paths and JSON)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import JSONResponse

from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.server.context import ServerContext
from pyadk.server.models import CreateSessionRequest, UpdateSessionRequest
from pyadk.server.security import require_user
from pyadk.server.turn_start import conflict_error
from pyadk.sessions.errors import SessionConflictError
from pyadk.sessions.session import Session

SESSIONS = "/apps/{app_name}/users/{user_id}/sessions"


def session_json(session: Session) -> dict[str, Any]:
    """A session as ADK's API returns it: camelCase, None fields left out."""
    return session.model_dump(mode="json", by_alias=True, exclude_none=True)


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    @router.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/list-apps")
    async def list_apps() -> list[str]:
        return ctx.list_apps()

    @router.get(SESSIONS + "/{session_id}")
    async def get_session(
        app_name: str, user_id: str, session_id: str, request: Request
    ) -> JSONResponse:
        require_user(request, user_id)
        ctx.require_app(app_name)
        return JSONResponse(session_json(await ctx.session(app_name, user_id, session_id)))

    @router.get(SESSIONS)
    async def list_sessions(app_name: str, user_id: str, request: Request) -> JSONResponse:
        require_user(request, user_id)
        ctx.require_app(app_name)
        listed = await ctx.session_service.list_sessions(app_name=app_name, user_id=user_id)
        return JSONResponse([session_json(s) for s in listed.sessions])

    @router.post(SESSIONS + "/{session_id}")
    async def create_session_with_id(
        app_name: str,
        user_id: str,
        session_id: str,
        request: Request,
        state: dict[str, Any] | None = Body(default=None),
    ) -> JSONResponse:
        """The body is the initial state itself (as in google-adk), or empty."""
        require_user(request, user_id)
        ctx.require_app(app_name)
        session = await _create(ctx, app_name, user_id, session_id, state, None)
        return JSONResponse(session_json(session))

    @router.post(SESSIONS)
    async def create_session(
        app_name: str,
        user_id: str,
        request: Request,
        body: CreateSessionRequest | None = Body(default=None),
    ) -> JSONResponse:
        """Body ``{state?, events?, sessionId?}``; events are imported in order."""
        require_user(request, user_id)
        ctx.require_app(app_name)
        body = body or CreateSessionRequest()
        session = await _create(ctx, app_name, user_id, body.session_id, body.state, body)
        return JSONResponse(session_json(session))

    @router.patch(SESSIONS + "/{session_id}")
    async def update_session(
        app_name: str,
        user_id: str,
        session_id: str,
        body: UpdateSessionRequest,
        request: Request,
    ) -> JSONResponse:
        """Applies ``stateDelta`` without running the agent: a ``user`` event holding
        only the delta is appended. 409 while a turn holds the session (nothing written)."""
        require_user(request, user_id)
        ctx.require_app(app_name)
        session = await ctx.session(app_name, user_id, session_id)
        event = Event(
            invocation_id=f"p-{uuid.uuid4()}",
            author="user",
            actions=EventActions(state_delta=body.state_delta),
        )
        try:
            await ctx.session_service.append_event(session, event)
        except SessionConflictError as exc:  # a turn holds it, or another writer was first
            raise conflict_error(exc) from exc
        return JSONResponse(session_json(await ctx.session(app_name, user_id, session_id)))

    @router.delete(SESSIONS + "/{session_id}")
    async def delete_session(
        app_name: str, user_id: str, session_id: str, request: Request
    ) -> None:
        require_user(request, user_id)
        ctx.require_app(app_name)
        await ctx.session_service.delete_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )

    return router


async def _create(
    ctx: ServerContext,
    app_name: str,
    user_id: str,
    session_id: str | None,
    state: dict[str, Any] | None,
    body: CreateSessionRequest | None,
) -> Session:
    service = ctx.session_service
    if session_id and await service.get_session(
        app_name=app_name, user_id=user_id, session_id=session_id
    ):
        raise HTTPException(status_code=400, detail=f"Session already exists: {session_id!r}.")
    try:
        session = await service.create_session(
            app_name=app_name, user_id=user_id, state=state, session_id=session_id
        )
    except ValueError as exc:  # created concurrently, or rejected by the service
        raise HTTPException(status_code=400, detail=str(exc)) from exc
    for event in (body.events if body else None) or []:
        await service.append_event(session, event)
    if body and body.events:
        stored = await service.get_session(
            app_name=app_name, user_id=user_id, session_id=session.id
        )
        session = stored or session
    return session
