"""Reading OpenAPI specs: names, $ref resolution (recursive too), clear errors for specs
that cannot be used, and the pyyaml requirement of YAML specs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pyadk.tools.openapi_tool import OpenAPIToolset
from pyadk.tools.openapi_tool.openapi_spec_parser import OpenApiSpecParser


def _spec(paths: dict, **extra) -> dict:
    return {"openapi": "3.1.0", "servers": [{"url": "http://127.0.0.1:9"}], "paths": paths, **extra}


def _declaration(toolset: OpenAPIToolset, name: str) -> dict:
    tool = toolset.get_tool(name)
    assert tool is not None, [t.name for t in toolset._tools]
    return tool._get_declaration().parameters_json_schema


def test_names_are_snake_case_operation_ids_cut_to_60_characters_and_kept_distinct():
    long_a = "getTheVeryLongNameOfAnOperationThatGoesOnAndOnAndOnForeverAlpha"
    long_b = "getTheVeryLongNameOfAnOperationThatGoesOnAndOnAndOnForeverBeta"
    toolset = OpenAPIToolset(
        spec_dict=_spec(
            {
                "/a": {"get": {"operationId": long_a}},
                "/b": {"get": {"operationId": long_b}},
                "/users/{id}/HTTPStatus": {"put": {}},  # no operationId
            }
        )
    )
    names = [t.name for t in toolset._tools]
    assert names[0] == "get_the_very_long_name_of_an_operation_that_goes_on_and_on_a"
    assert len(names[0]) == 60
    assert names[1] == names[0][:58] + "_2"
    assert names[2] == "users_id_http_status_put"


def test_mutually_recursive_refs_resolve_without_looping():
    spec = _spec(
        {
            "/people": {
                "post": {
                    "operationId": "addPerson",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Person"}}
                        }
                    },
                }
            }
        },
        components={
            "schemas": {
                "Person": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "employer": {"$ref": "#/components/schemas/Company"},
                    },
                },
                "Company": {
                    "type": "object",
                    "properties": {
                        "staff": {
                            "type": "array",
                            "items": {"$ref": "#/components/schemas/Person"},
                        },
                        "parent": {"$ref": "#/components/schemas/Company"},
                    },
                },
            }
        },
    )
    schema = _declaration(OpenAPIToolset(spec_dict=spec), "add_person")
    employer = schema["properties"]["employer"]
    assert employer["properties"]["staff"]["items"]["description"].startswith("A Person")
    assert employer["properties"]["parent"]["description"].startswith("A Company")
    assert len(json.dumps(schema)) < 2000


def test_all_of_bodies_merge_and_property_names_can_be_preserved():
    spec = _spec(
        {
            "/items": {
                "post": {
                    "operationId": "addItem",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "allOf": [
                                        {"$ref": "#/components/schemas/Base"},
                                        {
                                            "type": "object",
                                            "required": ["unitPrice"],
                                            "properties": {"unitPrice": {"type": "number"}},
                                        },
                                    ]
                                }
                            }
                        }
                    },
                }
            }
        },
        components={
            "schemas": {
                "Base": {
                    "type": "object",
                    "required": ["itemName"],
                    "properties": {"itemName": {"type": "string"}},
                }
            }
        },
    )
    snake = _declaration(OpenAPIToolset(spec_dict=spec), "add_item")
    assert snake["required"] == ["item_name", "unit_price"]
    kept = _declaration(OpenAPIToolset(spec_dict=spec, preserve_property_names=True), "add_item")
    assert list(kept["properties"]) == ["itemName", "unitPrice"]


def test_an_operation_parameter_overrides_the_path_items_and_clashing_names_get_suffixes():
    spec = _spec(
        {
            "/things/{id}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "post": {
                    "operationId": "updateThing",
                    "parameters": [{"name": "id", "in": "path", "schema": {"type": "integer"}}],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"id": {"type": "string"}},
                                }
                            }
                        }
                    },
                },
            }
        }
    )
    schema = _declaration(OpenAPIToolset(spec_dict=spec), "update_thing")
    assert schema["properties"] == {"id": {"type": "integer"}, "id_0": {"type": "string"}}
    assert schema["required"] == ["id"]


def test_only_safe_methods_are_idempotent():
    toolset = OpenAPIToolset(
        spec_dict=_spec({"/a": {"get": {"operationId": "read"}, "post": {"operationId": "write"}}})
    )
    assert toolset.get_tool("read").idempotent is True
    assert toolset.get_tool("write").idempotent is False


def test_optional_security_needs_no_credential():
    spec = _spec(
        {"/open": {"get": {"operationId": "open", "security": [{}, {"key": []}]}}},
        security=[{"key": []}],
        components={"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "K"}}},
    )
    assert OpenAPIToolset(spec_dict=spec).get_tool("open").auth_scheme is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "OpenAPIToolset needs spec_dict or spec_str"),
        ({"spec_str": "{not json"}, "Invalid OpenAPI spec: not valid JSON"),
        ({"spec_str": "[1, 2]"}, "the document must be an object"),
        ({"spec_str": "a: [", "spec_str_type": "yaml"}, "not valid YAML"),
        ({"spec_str": "{}", "spec_str_type": "toml"}, "Unsupported spec type: 'toml'"),
        ({"spec_dict": {"swagger": "2.0", "paths": {}}}, "Swagger 2.0 documents are not supported"),
        ({"spec_dict": {"info": {"title": "x"}}}, "no 'openapi' version and no 'paths'"),
        ({"spec_dict": {"openapi": "3.0.0", "paths": []}}, "'paths' must be an object"),
        (
            {"spec_dict": _spec({"/a": {"get": {"parameters": [{"in": "query"}]}}})},
            "parameter 0 of GET /a has no name",
        ),
        (
            {"spec_dict": _spec({"/a": {"get": {"parameters": [{"name": "q", "in": "body"}]}}})},
            "parameter 'q' of GET /a has 'in': 'body'",
        ),
        (
            {
                "spec_dict": _spec(
                    {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/Nope"}]}}}
                )
            },
            "$ref '#/components/parameters/Nope' at /paths/~1a/get/parameters/0 points to nothing",
        ),
        (
            {"spec_dict": _spec({"/a": {"get": {"parameters": [{"$ref": "other.yaml#/Limit"}]}}})},
            "points outside the document",
        ),
        (
            {"spec_dict": _spec({"/a": {"get": {"security": [{"missing": []}]}}})},
            "GET /a requires security scheme 'missing'",
        ),
    ],
)
def test_a_spec_that_cannot_be_used_gives_a_clear_error(kwargs, message):
    with pytest.raises(ValueError) as caught:
        OpenAPIToolset(**kwargs)
    assert message in str(caught.value)


def test_a_dangling_ref_names_the_reference():
    spec = _spec({"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Gone"}}}}})
    with pytest.raises(ValueError) as caught:
        OpenApiSpecParser().parse(spec)
    assert "$ref '#/components/responses/Gone'" in str(caught.value)
    assert "points to nothing" in str(caught.value)


def test_a_yaml_spec_without_pyyaml_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml now raises ImportError
    with pytest.raises(ImportError, match=r"needs pyyaml: pip install 'pyadk\[openapi\]'"):
        OpenAPIToolset(spec_str="openapi: 3.0.0\npaths: {}\n", spec_str_type="yaml")
    # JSON specs do not need it
    assert OpenAPIToolset(spec_str='{"openapi": "3.0.0", "paths": {}}')._tools == []


def test_the_core_import_loads_neither_the_openapi_tools_nor_httpx_nor_yaml():
    code = (
        "import sys\n"
        "from pyadk.agents import LlmAgent\n"
        "from pyadk.runners import InMemoryRunner\n"
        "import pyadk.tools\n"
        "loaded = [m for m in ('httpx', 'yaml', 'pyadk.tools.openapi_tool', 'pyadk.auth')"
        " if m in sys.modules]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_form_and_text_bodies_and_values_serialized_as_text():
    import httpx

    spec = _spec(
        {
            "/login": {
                "post": {
                    "operationId": "login",
                    "parameters": [
                        {"name": "X-Debug", "in": "header", "schema": {"type": "boolean"}},
                        {"name": "ids", "in": "header", "schema": {"type": "array"}},
                        {"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
                    ],
                    "requestBody": {
                        "content": {
                            "application/x-www-form-urlencoded": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"user": {}, "password": {}},
                                }
                            }
                        }
                    },
                }
            },
            "/notes": {
                "put": {
                    "operationId": "putNote",
                    "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
                }
            },
        }
    )
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, text="ok")

    toolset = OpenAPIToolset(
        spec_dict=spec,
        httpx_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        allow_private_network_access=True,
    )
    args = {"user": "ann", "password": "pw", "x_debug": True, "ids": [1, 2], "verbose": False}
    assert await toolset.get_tool("login").call(args=args) == {"text": "ok"}
    login = sent[-1]
    assert login.headers["content-type"] == "application/x-www-form-urlencoded"
    assert login.content == b"user=ann&password=pw"
    assert login.headers["x-debug"] == "true" and login.headers["ids"] == "1,2"
    assert login.url.params["verbose"] == "false"
    schema = _declaration(toolset, "put_note")
    assert schema["properties"] == {"body": {"type": "string"}}
    await toolset.get_tool("put_note").call(args={"body": "remember the milk"})
    assert sent[-1].content == b"remember the milk"
    assert sent[-1].headers["content-type"] == "text/plain"
