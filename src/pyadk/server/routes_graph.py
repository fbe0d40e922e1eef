"""Route: ``GET .../sessions/{id}/events/{event_id}/graph`` (google-adk's event graph)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from pyadk.server.agent_graph import agent_graph_dot
from pyadk.server.context import ServerContext
from pyadk.server.routes_sessions import SESSIONS
from pyadk.server.security import require_user


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    @router.get(SESSIONS + "/{session_id}/events/{event_id}/graph")
    async def event_graph(
        app_name: str, user_id: str, session_id: str, event_id: str, request: Request
    ) -> dict[str, str]:
        """``{"dotSrc": <DOT>}``: the app's agent tree with what the event did highlighted
        (its author; the tool it called or heard from; the agent it transferred to)."""
        require_user(request, user_id)
        agent = ctx.agent(app_name)
        session = await ctx.session(app_name, user_id, session_id)
        event = next((e for e in session.events if e.id == event_id), None)
        if event is None:
            raise HTTPException(
                status_code=404,
                detail=f"Event not found: {event_id!r} in session {session_id!r}.",
            )
        return {"dotSrc": agent_graph_dot(agent, event)}

    return router
