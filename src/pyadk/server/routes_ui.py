"""Routes of the UI event protocol (``docs/ui-events.md``): start, resume, cancel, history."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import StreamingResponse

from pyadk.server.context import ServerContext
from pyadk.server.models import AgentRunRequest
from pyadk.server.routes_run import prepare_run
from pyadk.server.routes_sessions import SESSIONS
from pyadk.server.security import require_user
from pyadk.server.sse import sse_comment, sse_json, sse_response
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import protocol_info
from pyadk.server.ui_runs import UiRun, drive_run

RUN_ID_HEADER = "X-Run-Id"


def parse_last_event_id(value: str | None, run_id: str) -> int:
    """The ``seq`` after which to resume: from ``<runId>:<seq>`` or ``<seq>``; 0 if None."""
    if value is None or not value.strip():
        return 0
    prefix, _, seq = value.strip().rpartition(":")
    if prefix and prefix != run_id:
        raise HTTPException(
            status_code=400, detail=f"Last-Event-ID {value!r} belongs to another run."
        )
    if not seq.isdigit():
        raise HTTPException(
            status_code=400,
            detail=f"Invalid Last-Event-ID {value!r}: expected '<runId>:<seq>' or '<seq>'.",
        )
    return int(seq)


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    def stream(run: UiRun, after: int) -> StreamingResponse:
        async def body() -> AsyncIterator[str]:
            keepalive = ctx.settings.sse_keepalive_seconds
            async for event in run.follow(after, keepalive):
                if event is None:
                    yield sse_comment("keep-alive")
                else:
                    yield sse_json(event.to_json_dict(), id=event.id)

        return sse_response(body(), headers={RUN_ID_HEADER: run.run_id})

    @router.get("/ui-protocol")
    async def ui_protocol() -> dict[str, Any]:
        return protocol_info()

    @router.post("/run_ui_events")
    async def run_ui_events(body: AgentRunRequest, request: Request) -> StreamingResponse:
        """Starts a run and streams its UI events. The model output is streamed unless
        the body says ``"streaming": false``. The run goes on if the client drops.
        409 when another turn holds or changed the session (nothing written); later
        errors are ``error`` + ``done`` events."""
        runner = await prepare_run(ctx, request, body)
        streaming = body.streaming if "streaming" in body.model_fields_set else True
        converter = UiEventConverter(
            run_id=uuid.uuid4().hex,
            root_agent=runner.agent,
            filter_handoff_text=ctx.settings.filter_handoff_text,
        )
        converter.answering(body.new_message)  # to name a refused input answer
        run = UiRun(
            converter,
            app_name=body.app_name,
            user_id=body.user_id,
            session_id=body.session_id,
        )
        events = runner.run_async(
            user_id=body.user_id,
            session_id=body.session_id,
            new_message=body.new_message,
            state_delta=body.state_delta,
            run_config=body.run_config(streaming=streaming),
            invocation_id=body.invocation_id,
        )
        ctx.ui_runs.start(run, drive_run(run, events))
        try:
            await run.turn.wait()  # 409 if the session is busy: before any stream
        except HTTPException:  # refused: there is no run to resume
            ctx.ui_runs.discard(run.run_id)
            raise
        return stream(run, 0)

    @router.get("/run_ui_events/{run_id}")
    async def resume_ui_events(
        run_id: str,
        request: Request,
        last_event_id: str | None = Header(default=None),
        after: int | None = Query(default=None, ge=0),
    ) -> StreamingResponse:
        """Replays the run's events after ``Last-Event-ID`` (or ``?after=<seq>``), then
        follows it live until ``done``. Without either, replays from the start."""
        run = _run(ctx, run_id, request)
        position = after if after is not None else parse_last_event_id(last_event_id, run_id)
        return stream(run, position)

    @router.delete("/run_ui_events/{run_id}")
    async def cancel_ui_run(run_id: str, request: Request) -> dict[str, bool]:
        """Cancels a running run; its stream ends with ``done`` (reason ``cancelled``)."""
        _run(ctx, run_id, request)
        return {"cancelled": ctx.ui_runs.cancel(run_id)}

    @router.get(SESSIONS + "/{session_id}/ui-events")
    async def session_ui_events(
        app_name: str, user_id: str, session_id: str, request: Request
    ) -> list[dict[str, Any]]:
        """The stored session as UI events (``user_message`` included, no ``done``):
        what a chat and thinking panel show after a reload."""
        require_user(request, user_id)
        agent = ctx.agent(app_name)
        session = await ctx.session(app_name, user_id, session_id)
        converter = UiEventConverter(
            run_id=f"history:{session_id}",
            root_agent=agent,
            filter_handoff_text=ctx.settings.filter_handoff_text,
        )
        return [ui.to_json_dict() for event in session.events for ui in converter.convert(event)]

    return router


def _run(ctx: ServerContext, run_id: str, request: Request) -> UiRun:
    run = ctx.ui_runs.get(run_id)
    if run is None:
        raise HTTPException(status_code=404, detail=f"Run not found or expired: {run_id!r}.")
    require_user(request, run.user_id)
    return run
