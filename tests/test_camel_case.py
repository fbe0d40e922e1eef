"""pyadk's camelCase alias generator gives pydantic's aliases, for every field it names."""

from __future__ import annotations

import pydantic
import pytest
from pydantic.alias_generators import to_camel as pydantic_to_camel

import pyadk.agents.budget
import pyadk.types
from pyadk.utils.camel_case import to_camel


def _aliased_fields() -> set[str]:
    names: set[str] = set()
    for module in (pyadk.types, pyadk.agents.budget):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, pydantic.BaseModel)
                and value.model_config.get("alias_generator") is to_camel
            ):
                names |= set(value.model_fields)
    return names


def test_every_aliased_field_gets_pydantics_alias() -> None:
    names = _aliased_fields()
    assert len(names) > 100
    assert {name: to_camel(name) for name in names} == {
        name: pydantic_to_camel(name) for name in names
    }


@pytest.mark.parametrize(
    "name",
    [
        "mime_type",
        "a",
        "already",
        "alreadyCamel",
        "a_1b",
        "v2_api",
        "x1y_z",
        "with__double",
        "_lead",
        "ABC",
        "snake_case_x",
    ],
)
def test_names_of_any_form_match_pydantic(name: str) -> None:
    assert to_camel(name) == pydantic_to_camel(name)


def test_content_types_use_it() -> None:
    assert pyadk.types.Blob.model_fields["mime_type"].alias == "mimeType"
    assert pyadk.types.Blob.model_validate({"mimeType": "text/plain", "data": b"x"}).mime_type == (
        "text/plain"
    )
