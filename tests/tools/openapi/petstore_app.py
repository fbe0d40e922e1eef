"""The petstore API of petstore.yaml as a FastAPI app that records every request."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse


@dataclass
class Seen:
    """A request as the server received it."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    cookies: dict[str, str]
    body: bytes

    def query_values(self, name: str) -> list[str]:
        return [v for k, v in self.query if k == name]


@dataclass
class Petstore:
    app: FastAPI
    seen: list[Seen] = field(default_factory=list)


def make_app() -> Petstore:
    app = FastAPI()
    store = Petstore(app)
    pets: dict[int, dict[str, Any]] = {1: {"id": 1, "name": "Rex", "status": "available"}}

    @app.middleware("http")
    async def record(request: Request, call_next: Any) -> Response:
        body = await request.body()
        store.seen.append(
            Seen(
                method=request.method,
                path=request.url.path,
                query=list(request.query_params.multi_items()),
                headers={k.lower(): v for k, v in request.headers.items()},
                cookies=dict(request.cookies),
                body=body,
            )
        )
        return await call_next(request)

    @app.get("/v1/pets")
    async def list_pets(status: str, limit: int = 20) -> list[dict[str, Any]]:
        return [p for p in pets.values() if p["status"] == status][:limit]

    @app.post("/v1/pets", status_code=201)
    async def add_pet(request: Request) -> dict[str, Any]:
        pet = {"id": max(pets) + 1, **(await request.json())}
        pets[pet["id"]] = pet
        return pet

    @app.get("/v1/pets/{pet_id}")
    async def get_pet(pet_id: int) -> Response:
        if pet_id == 500:
            return PlainTextResponse("database on fire", status_code=500)
        if pet_id not in pets:
            return JSONResponse({"detail": f"no pet {pet_id}"}, status_code=404)
        return JSONResponse(pets[pet_id])

    @app.delete("/v1/pets/{pet_id}", status_code=204)
    async def delete_pet(pet_id: int, request: Request) -> Response:
        if request.headers.get("x-api-key") != "secret-key":
            return JSONResponse({"detail": "bad key"}, status_code=401)
        pets.pop(pet_id, None)
        return Response(status_code=204)

    @app.get("/v1/pets/{pet_id}/card")
    async def pet_card(pet_id: int) -> PlainTextResponse:
        return PlainTextResponse(f"Pet #{pet_id}: {pets[pet_id]['name']}")

    @app.post("/v1/categories")
    async def categories(request: Request) -> dict[str, int]:
        def count(node: dict[str, Any]) -> int:
            return 1 + sum(count(c) for c in node.get("subcategories") or [])

        return {"created": count(await request.json())}

    @app.get("/v1/whoami")
    async def whoami(request: Request) -> dict[str, Any]:
        return {
            "authorization": request.headers.get("authorization"),
            "api_key_header": request.headers.get("x-api-key"),
            "api_key_query": request.query_params.get("key"),
            "api_key_cookie": request.cookies.get("key"),
        }

    @app.get("/v1/slow")
    async def slow() -> dict[str, str]:
        await asyncio.sleep(5)
        return {"done": "yes"}

    return store
