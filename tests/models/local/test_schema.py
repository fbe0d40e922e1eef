"""The output constraint: which calls and answers the embedded model may produce."""

import pytest
from pydantic import BaseModel

from pyadk import types
from pyadk.models import LlmRequest
from pyadk.models.local._runtime import (
    Constraint,
    grammar_for,
    grammar_with_text,
    text_grammar,
)
from pyadk.models.local._schema import any_of, call_schema, latest_calls, plan_output


class City(BaseModel):
    name: str
    country: str


class Trip(BaseModel):
    origin: City
    destination: City


def _decl(name: str, **props: str) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(
        name=name,
        description=f"The {name} tool.",
        parameters=types.Schema(
            type="OBJECT",
            properties={k: types.Schema(type=v) for k, v in props.items()},
            required=list(props) or None,
        ),
    )


def _request(mode: str | None = None, allowed=None, **config) -> LlmRequest:
    tools = [types.Tool(function_declarations=[_decl("weather", city="STRING"), _decl("now")])]
    tool_config = None
    if mode:
        tool_config = types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=mode, allowed_function_names=allowed
            )
        )
    return LlmRequest(
        contents=[types.UserContent("hi")],
        config=types.GenerateContentConfig(tools=tools, tool_config=tool_config, **config),
    )


WEATHER_CALL = {
    "type": "object",
    "properties": {
        "name": {"const": "weather"},
        "arguments": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
    "required": ["name", "arguments"],
    "additionalProperties": False,
}


def test_auto_allows_any_declared_call_or_text():
    plan = plan_output(_request())
    assert plan.callable_names == ["weather", "now"]
    assert [t["function"]["name"] for t in plan.tools] == ["weather", "now"]
    assert plan.constraint.allow_text and not plan.forced
    assert plan.constraint.json_schema == {
        "anyOf": [WEATHER_CALL, call_schema("now", {"type": "object", "properties": {}})]
    }


def test_any_forces_a_call_of_the_allowed_functions():
    plan = plan_output(_request("ANY", allowed=["weather"]))
    assert plan.forced and plan.callable_names == ["weather"]
    assert plan.constraint == Constraint(WEATHER_CALL, allow_text=False)
    assert [t["function"]["name"] for t in plan.tools] == ["weather"]


def test_none_allows_no_call_and_keeps_text_from_looking_like_one():
    plan = plan_output(_request("NONE"))
    assert plan.tools == [] and plan.callable_names == []
    assert plan.constraint == Constraint(text_guard=True)


def test_no_tools_no_schema_is_unconstrained():
    plan = plan_output(LlmRequest(contents=[types.UserContent("hi")]))
    assert plan.constraint == Constraint() and plan.tools == []


def test_response_schema_alone_constrains_the_answer():
    request = LlmRequest(contents=[types.UserContent("hi")])
    request.set_output_schema(City)
    plan = plan_output(request)
    assert plan.json_answer
    assert plan.constraint == Constraint(City.model_json_schema(), allow_text=False)


def test_tools_and_response_schema_hoist_defs():
    request = _request()
    request.config.response_schema = Trip
    plan = plan_output(request)
    schema = plan.constraint.json_schema
    assert not plan.constraint.allow_text
    assert schema["$defs"] == {"City": City.model_json_schema()}
    options = schema["anyOf"]
    assert options[0] == WEATHER_CALL and "$defs" not in options[2]
    assert options[2]["properties"]["origin"] == {"$ref": "#/$defs/City"}


def test_genai_style_dict_schema_and_json_mime_type():
    request = LlmRequest(
        contents=[],
        config=types.GenerateContentConfig(
            response_schema={"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}
        ),
    )
    assert plan_output(request).answer_schema == {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }
    bare = LlmRequest(config=types.GenerateContentConfig(response_mime_type="application/json"))
    assert plan_output(bare).answer_schema == {"type": "object"}


def test_excluded_functions_stay_listed_but_are_not_callable():
    plan = plan_output(_request(), exclude=frozenset({"weather"}))
    assert [t["function"]["name"] for t in plan.tools] == ["weather", "now"]
    assert plan.callable_names == ["now"]
    everything = plan_output(_request(), exclude=frozenset({"weather", "now"}), json_text=True)
    assert everything.constraint == Constraint(text_guard=True, json_text=True)


def test_any_of_keeps_the_first_of_conflicting_defs(caplog):
    merged = any_of(
        [
            {"$ref": "#/$defs/A", "$defs": {"A": {"type": "string"}}},
            {"$ref": "#/$defs/A", "$defs": {"A": {"type": "integer"}}},
        ]
    )
    assert merged["$defs"] == {"A": {"type": "string"}}
    assert "define $defs/A differently" in caplog.text
    assert any_of([{"type": "string"}]) == {"type": "string"}


def test_latest_calls_are_those_answered_at_the_end_of_the_history():
    call = types.ModelContent([types.Part.from_function_call(name="now", args={"tz": "UTC"})])
    result = types.Content(
        role="user", parts=[types.Part.from_function_response(name="now", response={})]
    )
    assert latest_calls([types.UserContent("q"), call, result]) == {'now{"tz": "UTC"}'}
    assert latest_calls([types.UserContent("q"), call, result, types.ModelContent("ok")]) == set()
    assert latest_calls([result]) == set()


LLG_CALL = '%llguidance {}\nstart: %json {"type": "object"}'
GBNF_CALL = 'root ::= "{" space "}" space\nspace ::= | " " | "\\n"'


def test_grammar_with_text_for_llguidance():
    assert grammar_with_text(LLG_CALL).splitlines() == [
        "%llguidance {}",
        'start: pyadk_call | "<tool_call>\\n" pyadk_call "\\n</tool_call>" | PYADK_TEXT',
        'pyadk_call: %json {"type": "object"}',
        "PYADK_TEXT: /[^{<`\\s][\\s\\S]*/",
    ]
    tolerant = grammar_with_text(LLG_CALL, json_text=True).splitlines()[-1]
    assert tolerant == 'PYADK_TEXT: /([^{<`\\s]|\\{\\s*"[^n"])[\\s\\S]*/'


def test_grammar_with_text_for_gbnf():
    assert grammar_with_text(GBNF_CALL).splitlines() == [
        'root ::= pyadk-call | "<tool_call>\\n" pyadk-call "\\n</tool_call>" | pyadk-text',
        'pyadk-call ::= "{" space "}" space',
        'space ::= | " " | "\\n"',
        "pyadk-text ::= [^{<`\\x20\\t\\n\\r] [^\\x00]*",
    ]


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        (Constraint(), None),
        (Constraint({"type": "object"}, allow_text=False), None),
        (Constraint(text_guard=True), text_grammar(True)),
        (Constraint({"type": "object"}), grammar_with_text(LLG_CALL)),
    ],
)
def test_grammar_for_each_constraint(constraint, expected):
    def to_grammar(schema):
        return '%llguidance {}\nstart: %json {"type": "object"}'

    assert grammar_for(constraint, to_grammar) == expected


def test_text_grammars():
    assert text_grammar(True).splitlines() == [
        "%llguidance {}",
        "start: PYADK_TEXT",
        "PYADK_TEXT: /[^{<`\\s][\\s\\S]*/",
    ]
    assert text_grammar(False, json_text=True).splitlines() == [
        "root ::= pyadk-text",
        'pyadk-text ::= ([^{<`\\x20\\t\\n\\r] | "{" [ \\t\\n\\r]* "\\"" [^n"]) [^\\x00]*',
    ]
