"""Routes: ``POST /run`` (all events at once) and ``POST /run_sse`` (ADK's SSE stream)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import aclosing

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse

from pyadk.agents.interrupted import (
    InvocationNotFoundError,
    InvocationNotInterruptedError,
    plan_resume,
)
from pyadk.flows.client_answers import check_client_answers
from pyadk.flows.client_requests import answers_a_request
from pyadk.runners import Runner
from pyadk.server.background_run import BackgroundRun
from pyadk.server.context import ServerContext
from pyadk.server.json_safe import model_json
from pyadk.server.models import AgentRunRequest
from pyadk.server.security import require_user
from pyadk.server.sse import sse_json, sse_response
from pyadk.server.turn_start import conflict_error
from pyadk.sessions.errors import SessionConflictError

logger = logging.getLogger(__name__)


async def prepare_run(ctx: ServerContext, request: Request, body: AgentRunRequest) -> Runner:
    """Checks the caller, the app and the session before anything runs or is written."""
    require_user(request, body.user_id)
    runner = ctx.runner(body.app_name)
    session = await ctx.session(body.app_name, body.user_id, body.session_id)
    if answers_a_request(body.new_message):
        try:
            check_client_answers(session.events, body.new_message)
        except ValueError as exc:  # an answer to no request, or one that does not fit it
            raise HTTPException(status_code=400, detail=str(exc)) from exc
    if body.invocation_id is not None:  # resuming: the invocation must be resumable
        try:
            plan_resume(session, body.invocation_id, runner.agent)
        except InvocationNotFoundError as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from exc
        except InvocationNotInterruptedError as exc:
            raise HTTPException(status_code=409, detail=str(exc)) from exc
    return runner


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    @router.post("/run")
    async def run(body: AgentRunRequest, request: Request) -> JSONResponse:
        """Runs the agent and returns every event (non-streaming; ``streaming`` ignored).
        409 when another turn holds or changed the session (nothing written)."""
        runner = await prepare_run(ctx, request, body)
        events = []
        try:
            async with aclosing(
                runner.run_async(
                    user_id=body.user_id,
                    session_id=body.session_id,
                    new_message=body.new_message,
                    state_delta=body.state_delta,
                    run_config=body.run_config(streaming=False),
                    invocation_id=body.invocation_id,
                )
            ) as stream:
                async for event in stream:
                    events.append(model_json(event, exclude_none=True))
        except SessionConflictError as exc:  # another turn holds or changed the session
            raise conflict_error(exc) from exc
        except Exception as exc:
            logger.exception("Run failed (app %r)", body.app_name)
            raise HTTPException(
                status_code=500, detail=f"Agent run failed: {type(exc).__name__}: {exc}"
            ) from exc
        return JSONResponse(events)

    @router.post("/run_sse")
    async def run_sse(body: AgentRunRequest, request: Request) -> StreamingResponse:
        """``data: <Event JSON>`` per event; ``streaming: true`` adds partial events.

        409 when another turn holds or changed the session (nothing written). Once
        the stream started, an exception is sent as a last ``data: {"error": "..."}``."""
        runner = await prepare_run(ctx, request, body)
        run = BackgroundRun(
            runner.run_async(
                user_id=body.user_id,
                session_id=body.session_id,
                new_message=body.new_message,
                state_delta=body.state_delta,
                run_config=body.run_config(streaming=body.streaming),
                invocation_id=body.invocation_id,
            )
        )
        await run.started()

        async def stream() -> AsyncIterator[str]:
            try:
                async for event in run.events():
                    yield sse_json(model_json(event, exclude_none=True))
            except Exception as exc:
                logger.exception("SSE run failed (app %r)", body.app_name)
                yield sse_json({"error": f"{type(exc).__name__}: {exc}"})
            finally:  # the client may be gone: stop the run (its turn ends)
                run.cancel()

        return sse_response(stream())

    return router
