"""OpenAPIToolset end to end: an LlmAgent driven by a scripted model calls the petstore
API over real HTTP (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import json

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools.openapi_tool import OpenAPIToolset


def _message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _responses(events) -> list:
    return [r for e in events for r in e.get_function_responses()]


async def _run(runner: InMemoryRunner, text: str) -> list:
    session = await runner.session_service.create_session(app_name="shop", user_id="u")
    return [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message=_message(text)
        )
    ]


async def test_an_agent_adds_a_pet_and_the_model_sees_the_servers_answer(petstore):
    toolset = OpenAPIToolset(
        spec_str=petstore.spec_yaml, spec_str_type="yaml", allow_private_network_access=True
    )
    new_pet = {
        "name": "Tom",
        "status": "pending",
        "tags": [{"name": "cat"}, {"name": "grey"}],
        "owner": {"name": "Ann", "address": {"city": "Lyon", "zipCode": "69001"}},
        "birth_year": 2020,
    }
    model = ScriptedModel([function_call("add_pet", new_pet), "Tom is in the store."])
    agent = LlmAgent(name="shop", model=model, tools=[toolset])
    async with InMemoryRunner(agent, app_name="shop") as runner:
        events = await _run(runner, "Add Tom")

    request = petstore.seen[-1]
    assert (request.method, request.path) == ("POST", "/v1/pets")
    assert request.headers["content-type"] == "application/json"
    assert (
        request.headers["user-agent"].startswith("pyadk/")
        and "add_pet" in request.headers["user-agent"]
    )
    sent = json.loads(request.body)
    # top-level body properties go back to their spec names; nested objects are kept as sent
    assert sent == {**{k: v for k, v in new_pet.items() if k != "birth_year"}, "birthYear": 2020}
    answer = {"id": 2, **sent}
    assert _responses(events)[0].response == answer
    # the model's next request carries the server's JSON answer
    history = model.requests[1].contents
    assert history[-1].parts[0].function_response.response == answer
    assert events[-1].text == "Tom is in the store."


async def test_path_query_header_and_cookie_parameters_reach_the_server(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    model = ScriptedModel(
        [
            function_call("list_pets", {"status": "available", "tags": ["a", "b"]}),
            function_call("get_pet_by_id", {"pet_id": 1, "x_request_id": "req-7", "session": "s1"}),
            "done",
        ]
    )
    events = await TestRunner(LlmAgent(name="shop", model=model, tools=[toolset])).run("go")
    listing, lookup = petstore.seen[-2:]
    assert (listing.method, listing.path) == ("GET", "/v1/pets")
    assert listing.query_values("status") == ["available"]
    assert listing.query_values("tags") == ["a", "b"]
    assert listing.query_values("limit") == []  # not required: its default is the server's
    assert lookup.path == "/v1/pets/1"
    assert lookup.headers["x-request-id"] == "req-7" and lookup.cookies == {"session": "s1"}
    results = [r.response for r in _responses(events)]
    assert results[0] == {"result": [{"id": 1, "name": "Rex", "status": "available"}]}
    assert results[1] == {"id": 1, "name": "Rex", "status": "available"}


async def test_json_and_yaml_specs_give_the_same_declarations_matching_the_spec(petstore):
    from_yaml = OpenAPIToolset(spec_str=petstore.spec_yaml, spec_str_type="yaml")
    from_json = OpenAPIToolset(spec_str=json.dumps(petstore.spec_dict()), spec_str_type="json")
    declarations = {t.name: t._get_declaration() for t in await from_yaml.get_tools()}
    assert declarations == {t.name: t._get_declaration() for t in await from_json.get_tools()}
    assert list(declarations) == [
        "list_pets",
        "add_pet",
        "get_pet_by_id",
        "delete_pet",
        "get_pet_card",
        "create_category_tree",
        "who_am_i",
        "slow_operation",
    ]
    assert declarations["list_pets"].description == "List the pets of the store."
    assert declarations["add_pet"].description == "Adds a pet to the store."

    listing = declarations["list_pets"].parameters_json_schema
    assert listing["required"] == ["status"]
    assert listing["properties"]["status"]["enum"] == ["available", "pending", "sold"]
    assert listing["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert listing["properties"]["limit"]["type"] == "integer"

    by_id = declarations["get_pet_by_id"].parameters_json_schema
    assert by_id["required"] == ["pet_id"]  # the path item's parameter
    assert set(by_id["properties"]) == {"pet_id", "x_request_id", "session"}
    assert by_id["properties"]["pet_id"] == {"type": "integer", "description": "The pet's id."}

    add = declarations["add_pet"].parameters_json_schema
    assert add["required"] == ["name", "status"]
    props = add["properties"]
    assert props["name"] == {"type": "string", "description": "The pet's name."}
    assert props["status"]["enum"] == ["available", "pending", "sold"]
    assert props["birth_year"]["type"] == ["integer", "null"]  # nullable
    owner = props["owner"]
    assert owner["required"] == ["name"]
    assert owner["properties"]["address"]["properties"]["zipCode"] == {"type": "string"}
    assert props["tags"]["items"]["properties"] == {"name": {"type": "string"}}


async def test_http_errors_become_error_results_and_the_run_goes_on(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    model = ScriptedModel(
        [
            function_call("get_pet_by_id", {"pet_id": 99}),
            function_call("get_pet_by_id", {"pet_id": 500}),
            "No such pet, and the store is down.",
        ]
    )
    agent = LlmAgent(name="shop", model=model, tools=[toolset])
    async with InMemoryRunner(agent, app_name="shop") as runner:
        events = await _run(runner, "Find pets 99 and 500")
    missing, broken = (r.response for r in _responses(events))
    assert missing["status"] == "error" and missing["status_code"] == 404
    assert json.loads(missing["body"]) == {"detail": "no pet 99"}
    assert missing["error"].startswith("Tool get_pet_by_id execution failed")
    assert "Status Code: 404" in missing["error"]
    assert broken["status_code"] == 500 and broken["body"] == "database on fire"
    # the model was shown both errors, then answered
    assert model.requests[1].contents[-1].parts[0].function_response.response == missing
    assert [e.text for e in events if e.is_final_response()] == [
        "No such pet, and the store is down."
    ]
    outcome = events[-1].actions.agent_outcome  # the failed tool calls fail the agent's run
    assert outcome is not None and outcome.status == "failure"
    assert "HTTP 404" in outcome.reason


async def test_non_json_answers_come_back_as_text(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    tool = toolset.get_tool("get_pet_card")
    assert await tool.call(args={"pet_id": 1}) == {"text": "Pet #1: Rex"}
    await toolset.close()


async def test_a_recursive_schema_is_declared_finitely_and_sent_whole(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    tool = toolset.get_tool("create_category_tree")
    schema = tool._get_declaration().parameters_json_schema
    assert schema["required"] == ["name"]
    # the reference back to Category is not expanded again: an object stub says what it is
    assert schema["properties"]["subcategories"]["items"] == {
        "type": "object",
        "description": "A Category (recursive: same shape as above).",
    }
    json.dumps(schema)  # finite
    tree = {"name": "a", "subcategories": [{"name": "b", "subcategories": [{"name": "c"}]}]}
    assert await tool.call(args=tree) == {"created": 3}
    assert json.loads(petstore.seen[-1].body) == tree
    await toolset.close()


async def test_tool_filter_by_names_or_predicate_and_prefix(petstore):
    spec = petstore.spec_dict()
    by_name = OpenAPIToolset(spec_dict=spec, tool_filter=["get_pet_by_id", "add_pet"])
    assert [t.name for t in await by_name.get_tools()] == ["add_pet", "get_pet_by_id"]
    reads = OpenAPIToolset(
        spec_dict=spec, tool_filter=lambda tool, ctx: tool.endpoint.method == "get"
    )
    assert [t.name for t in await reads.get_tools()] == [
        "list_pets",
        "get_pet_by_id",
        "get_pet_card",
        "who_am_i",
        "slow_operation",
    ]
    prefixed = OpenAPIToolset(spec_dict=spec, tool_filter=["list_pets"], tool_name_prefix="shop")
    assert [t.name for t in await prefixed.get_tools_checked()] == ["shop_list_pets"]

    model = ScriptedModel(["ok"])
    await TestRunner(LlmAgent(name="shop", model=model, tools=[by_name])).run("hi")
    assert model.requests[0].declared_function_names() == ["add_pet", "get_pet_by_id"]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://localhost:1/v1", "localhost names the local machine"),
        ("http://metadata.google.internal/v1", "names the local machine or internal"),
        ("http://169.254.169.254/v1", "a link-local (cloud metadata) address"),
        ("http://10.1.2.3/v1", "a private address"),
        ("http://[::ffff:127.0.0.1]/v1", "a private address"),
        ("http://224.0.0.1/v1", "a multicast address"),
    ],
)
async def test_internal_targets_are_refused_as_load_web_page_refuses_them(
    petstore, url: str, reason: str
):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), base_url=url)
    result = await toolset.get_tool("get_pet_by_id").call(args={"pet_id": 1})
    assert result["status"] == "error" and "Blocked host: " in result["error"]
    assert reason in result["error"], result["error"]


async def test_local_servers_are_refused_unless_allowed(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict())
    result = await toolset.get_tool("get_pet_by_id").call(args={"pet_id": 1})
    assert result["status"] == "error" and "Blocked host: 127.0.0.1" in result["error"]
    assert "allow_private_network_access=True" in result["error"]
    assert petstore.seen == []


async def test_base_url_overrides_the_specs_server(petstore):
    spec = petstore.spec_dict()
    spec["servers"] = [{"url": "/relative"}]
    unusable = OpenAPIToolset(spec_dict=spec, allow_private_network_access=True)
    try:
        await unusable.get_tool("get_pet_by_id").call(args={"pet_id": 1})
        raise AssertionError("expected ValueError")
    except ValueError as error:
        assert "get_pet_by_id" in str(error) and "base_url=" in str(error)
    toolset = OpenAPIToolset(
        spec_dict=spec, base_url=petstore.url + "/", allow_private_network_access=True
    )
    assert (await toolset.get_tool("get_pet_by_id").call(args={"pet_id": 1}))["name"] == "Rex"
    assert petstore.seen[-1].path == "/v1/pets/1"
    await toolset.close()


async def test_a_timeout_and_an_unreachable_server_are_error_results(petstore):
    slow = OpenAPIToolset(
        spec_dict=petstore.spec_dict(), timeout=0.2, allow_private_network_access=True
    )
    result = await slow.get_tool("slow_operation").call(args={})
    assert result["status"] == "error" and "timed out" in result["error"]
    await slow.close()

    gone = OpenAPIToolset(
        spec_dict=petstore.spec_dict(),
        base_url="http://127.0.0.1:9/v1",  # the discard port: nothing listens
        allow_private_network_access=True,
    )
    result = await gone.get_tool("get_pet_by_id").call(args={"pet_id": 1})
    assert (
        result["status"] == "error" and "Request failed: GET http://127.0.0.1:9" in result["error"]
    )
    await gone.close()


async def test_missing_path_parameter_and_dot_segments_are_error_results(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    tool = toolset.get_tool("get_pet_card")
    missing = await tool.call(args={})
    assert "Missing required path parameter 'pet_id'" in missing["error"]
    dots = await tool.call(args={"pet_id": ".."})
    assert dots["status"] == "error" and "'.' or '..'" in dots["error"]
    assert petstore.seen == []


async def test_close_closes_the_shared_client_and_a_later_call_opens_a_new_one(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    first, second = toolset.get_tool("get_pet_by_id"), toolset.get_tool("get_pet_card")
    await first.call(args={"pet_id": 1})
    await second.call(args={"pet_id": 1})
    client = toolset._clients._clients[__import__("asyncio").get_running_loop()]
    assert first._clients is second._clients is toolset._clients  # one client
    await toolset.close()
    assert client.is_closed
    assert (await first.call(args={"pet_id": 1}))["name"] == "Rex"
    await toolset.close()


def test_runner_run_in_new_event_loops_reuses_nothing_stale(petstore):
    toolset = OpenAPIToolset(spec_dict=petstore.spec_dict(), allow_private_network_access=True)
    model = ScriptedModel(
        [
            function_call("get_pet_by_id", {"pet_id": 1}),
            "one",
            function_call("get_pet_by_id", {"pet_id": 1}),
            "two",
        ]
    )
    runner = InMemoryRunner(LlmAgent(name="shop", model=model, tools=[toolset]), app_name="shop")
    session = __import__("asyncio").run(
        runner.session_service.create_session(app_name="shop", user_id="u")
    )
    for expected in ("one", "two"):  # each Runner.run call has an event loop of its own
        events = list(runner.run(user_id="u", session_id=session.id, new_message=_message("?")))
        assert events[-1].text == expected
        assert _responses(events)[0].response["name"] == "Rex"
