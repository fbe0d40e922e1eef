"""Tests for building function declarations and validating tool arguments."""

import dataclasses
import enum
import functools
import sys
import types as pytypes
from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Literal, Optional, Required, Union

import pydantic
import pytest
from pydantic import BaseModel, Field

from pyadk import types
from pyadk.tools.function_declarations import (
    build_arguments_model,
    build_function_declaration,
    schema_for_model,
    validate_arguments,
)
from pyadk.types import Schema, Type


def _props(func: Any, **kwargs: Any) -> dict[str, Schema]:
    declaration = build_function_declaration(func, **kwargs)
    assert declaration.parameters is not None
    assert declaration.parameters.type is Type.OBJECT
    assert declaration.parameters.properties is not None
    return declaration.parameters.properties


def _required(func: Any) -> list[str]:
    declaration = build_function_declaration(func)
    assert declaration.parameters is not None
    return declaration.parameters.required or []


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="Street and number.")
    city: str
    zip_code: int | None = None


class Customer(BaseModel):
    name: str
    address: Address
    tags: list[str] = []
    nick: Annotated[str, Field(description="What friends say.")] = ""


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0
    label: str = dataclasses.field(default="", metadata={"description": "A name."})


@dataclasses.dataclass
class DocumentedPoint:
    """A documented point."""

    x: float


class TreeNode(BaseModel):
    value: int
    children: list["TreeNode"] = []


class NotSupported:
    """A plain class: no schema can describe it."""


# --- descriptions from docstrings -------------------------------------------------------


def test_google_docstring_description_and_params() -> None:
    def search(query: str, limit: int = 10) -> list[str]:
        """Searches the catalogue.

        Matches titles and authors.

        Args:
            query: The words to look for.
            limit: At most this many
                results.

        Returns:
            The matching titles.
        """
        return []

    declaration = build_function_declaration(search)
    assert declaration.name == "search"
    assert declaration.description == "Searches the catalogue.\n\nMatches titles and authors."
    props = _props(search)
    assert props["query"].description == "The words to look for."
    assert props["limit"].description == "At most this many\nresults."


def test_sphinx_docstring() -> None:
    def convert(amount: float, currency: str) -> float:
        """Converts money.

        :param amount: How much.
        :param str currency: The target currency.
        :returns: The converted amount.
        """
        return amount

    declaration = build_function_declaration(convert)
    assert declaration.description == "Converts money."
    props = _props(convert)
    assert props["amount"].description == "How much."
    assert props["currency"].description == "The target currency."


def test_numpydoc_docstring() -> None:
    def scale(value: float, factor: float) -> float:
        """Scales a value.

        Parameters
        ----------
        value : float
            The value to scale.
        factor : float
            The multiplier.
        """
        return value * factor

    declaration = build_function_declaration(scale)
    assert declaration.description == "Scales a value."
    props = _props(scale)
    assert props["value"].description == "The value to scale."
    assert props["factor"].description == "The multiplier."


def test_docstring_without_sections_is_kept_whole() -> None:
    def greet(name: str) -> str:
        """Greets someone.

        Be nice:    keep the spacing.
        """
        return name

    declaration = build_function_declaration(greet)
    assert declaration.description == "Greets someone.\n\nBe nice:    keep the spacing."
    assert _props(greet)["name"].description is None


def test_missing_docstring_gives_no_description() -> None:
    def bare(x: int) -> int:
        return x

    assert not build_function_declaration(bare).description


def test_name_override() -> None:
    def f(x: int) -> int:
        return x

    assert build_function_declaration(f, name="renamed").name == "renamed"


# --- type mapping -------------------------------------------------------------------------


def test_scalar_types() -> None:
    def f(s: str, i: int, n: float, b: bool) -> None:
        pass

    props = _props(f)
    assert props["s"].type is Type.STRING
    assert props["i"].type is Type.INTEGER
    assert props["n"].type is Type.NUMBER
    assert props["b"].type is Type.BOOLEAN
    assert _required(f) == ["s", "i", "n", "b"]


def test_collection_types() -> None:
    def f(
        ints: list[int],
        anything: list,
        pair: tuple[int, ...],
        mixed: tuple[int, str],
        names: set[str],
        seq: Sequence[float],
        plain: dict,
        scores: dict[str, int],
    ) -> None:
        pass

    props = _props(f)
    assert props["ints"].type is Type.ARRAY
    assert props["ints"].items is not None and props["ints"].items.type is Type.INTEGER
    assert props["anything"].type is Type.ARRAY and props["anything"].items is None
    assert props["pair"].items is not None and props["pair"].items.type is Type.INTEGER
    mixed_items = props["mixed"].items
    assert mixed_items is not None and mixed_items.any_of is not None
    assert [s.type for s in mixed_items.any_of] == [Type.INTEGER, Type.STRING]
    assert props["names"].type is Type.ARRAY
    assert props["names"].items is not None and props["names"].items.type is Type.STRING
    assert props["seq"].items is not None and props["seq"].items.type is Type.NUMBER
    assert props["plain"].type is Type.OBJECT
    assert props["scores"].type is Type.OBJECT


def test_literal_types() -> None:
    def f(mode: Literal["fast", "slow"], level: Literal[1, 2, 3]) -> None:
        pass

    props = _props(f)
    assert props["mode"].type is Type.STRING
    assert props["mode"].enum == ["fast", "slow"]
    assert props["level"].type is Type.INTEGER
    assert props["level"].enum == ["1", "2", "3"]


def test_enum_types() -> None:
    def f(color: Color, priority: Priority = Priority.LOW) -> None:
        pass

    props = _props(f)
    assert props["color"].type is Type.STRING
    assert props["color"].enum == ["red", "blue"]
    assert props["priority"].type is Type.INTEGER
    assert props["priority"].enum == ["1", "2"]
    assert props["priority"].default == 1
    assert _required(f) == ["color"]


def test_optional_and_union_types() -> None:
    def f(
        a: Optional[int],  # noqa: UP045 - the typing spelling is what is tested
        b: str | None,
        c: Union[int, str],  # noqa: UP007
        d: int | str | None = None,
        e: Literal["x", None] = None,
    ) -> None:
        pass

    props = _props(f)
    assert props["a"].type is Type.INTEGER and props["a"].nullable is True
    assert props["b"].type is Type.STRING and props["b"].nullable is True
    assert props["c"].type is None
    assert props["c"].any_of is not None
    assert [s.type for s in props["c"].any_of] == [Type.INTEGER, Type.STRING]
    assert not props["c"].nullable
    assert props["d"].any_of is not None and props["d"].nullable is True
    assert props["e"].enum == ["x"] and props["e"].nullable is True
    # Nullable parameters are not required even without a default.
    assert _required(f) == ["c"]


def test_any_and_missing_annotation_accept_anything() -> None:
    def f(a: Any, b, c: object = None) -> None:  # type: ignore[no-untyped-def]
        pass

    props = _props(f)
    for key in ("a", "b", "c"):
        assert props[key].type is None
        assert props[key].any_of is None
    assert _required(f) == ["a", "b"]


def test_annotated_descriptions() -> None:
    def f(
        a: Annotated[int, "How many."],
        b: Annotated[str, Field(description="Which one.")],
        c: Annotated[Optional[int], "Maybe."] = None,  # noqa: UP045
    ) -> None:
        """Does f.

        Args:
            a: Docstring text loses to Annotated.
            b: Also loses.
        """

    props = _props(f)
    assert props["a"].type is Type.INTEGER and props["a"].description == "How many."
    assert props["b"].type is Type.STRING and props["b"].description == "Which one."
    assert props["c"].description == "Maybe." and props["c"].nullable is True


def test_pydantic_model_parameter_nested() -> None:
    def register(customer: Customer) -> None:
        """Registers a customer.

        Args:
            customer: The new customer.
        """

    schema = _props(register)["customer"]
    assert schema.type is Type.OBJECT
    assert schema.description == "The new customer."
    assert schema.properties is not None
    assert set(schema.properties) == {"name", "address", "tags", "nick"}
    assert schema.required == ["name", "address"]
    assert schema.properties["tags"].type is Type.ARRAY
    assert schema.properties["tags"].default == []
    assert schema.properties["nick"].description == "What friends say."
    address = schema.properties["address"]
    assert address.type is Type.OBJECT
    assert address.description == "A postal address."
    assert address.properties is not None
    assert address.properties["street"].description == "Street and number."
    assert address.properties["zip_code"].type is Type.INTEGER
    assert address.properties["zip_code"].nullable is True
    assert address.required == ["street", "city"]


def test_model_description_used_without_docstring_entry() -> None:
    def ship(to: Address) -> None:
        pass

    assert _props(ship)["to"].description == "A postal address."


def test_recursive_model_terminates() -> None:
    def walk(root: TreeNode) -> None:
        pass

    schema = _props(walk)["root"]
    assert schema.properties is not None
    children = schema.properties["children"]
    assert children.type is Type.ARRAY
    assert children.items is not None and children.items.type is Type.OBJECT
    assert children.items.properties is None


def test_dataclass_parameter() -> None:
    def plot(point: Point, other: DocumentedPoint) -> None:
        pass

    props = _props(plot)
    schema = props["point"]
    assert schema.type is Type.OBJECT
    assert schema.properties is not None
    assert schema.properties["x"].type is Type.NUMBER
    assert schema.properties["y"].default == 0.0
    assert schema.properties["label"].description == "A name."
    assert schema.required == ["x"]
    # The signature dataclasses store as a docstring is not a description.
    assert schema.description is None
    assert props["other"].description == "A documented point."


def test_defaults_and_required() -> None:
    sentinel = object()

    def f(
        a: int,
        b: int = 3,
        c: str = "hi",
        d: list[int] | None = None,
        e: Color = Color.BLUE,
        g: Any = sentinel,
    ) -> None:
        pass

    props = _props(f)
    assert _required(f) == ["a"]
    assert props["a"].default is None
    assert props["b"].default == 3
    assert props["c"].default == "hi"
    assert props["d"].default is None
    assert props["e"].default == "blue"
    assert props["g"].default is None  # not JSON-serializable: left out


def test_ignored_and_variadic_parameters() -> None:
    def f(x: int, tool_context: Any, input_stream: Any = None, *args: Any, **kwargs: Any) -> None:
        pass

    assert list(_props(f)) == ["x"]
    assert list(_props(f, ignore_params=("x",))) == ["tool_context", "input_stream"]


def test_self_is_skipped_for_bound_and_unbound_methods() -> None:
    class Shop:
        def buy(self, item: str) -> str:
            """Buys an item."""
            return item

    assert list(_props(Shop().buy)) == ["item"]
    assert list(_props(Shop.buy)) == ["item"]
    assert build_function_declaration(Shop().buy).name == "buy"


def test_no_parameters() -> None:
    def ping() -> str:
        """Checks the service."""
        return "pong"

    declaration = build_function_declaration(ping)
    assert declaration.parameters is None
    assert declaration.description == "Checks the service."


def test_a_function_without_parameters_is_called_with_none_of_the_models_arguments() -> None:
    def ping() -> str:
        """Checks the service."""
        return "pong"

    def ping_with_context(tool_context: object) -> str:
        """Checks the service."""
        return "pong"

    assert validate_arguments(ping, {}) == ({}, [])
    assert validate_arguments(ping, {"made_up": 1}) == ({}, [])
    assert validate_arguments(ping_with_context, {"made_up": 1}) == ({}, [])


def test_callable_object() -> None:
    class Weather:
        """Tells the weather."""

        def __call__(self, city: str, days: int = 1) -> str:
            """Gets a forecast.

            Args:
                city: Where.
                days: How far ahead.
            """
            return city

    declaration = build_function_declaration(Weather())
    assert declaration.name == "Weather"
    assert declaration.description == "Tells the weather."
    props = _props(Weather())
    assert props["city"].description == "Where."
    assert props["days"].type is Type.INTEGER
    assert _required(Weather()) == ["city"]


def test_partial_uses_underlying_function() -> None:
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    partial = functools.partial(add, b=2)
    declaration = build_function_declaration(partial)
    assert declaration.name == "add"
    assert declaration.description == "Adds."
    assert _required(partial) == ["a"]


def test_async_function() -> None:
    async def fetch(url: str) -> dict[str, Any]:
        """Fetches a page."""
        return {}

    declaration = build_function_declaration(fetch)
    assert declaration.name == "fetch"
    assert _props(fetch)["url"].type is Type.STRING
    assert declaration.response is not None and declaration.response.type is Type.OBJECT


def test_unsupported_type_raises_value_error() -> None:
    def process(thing: NotSupported) -> None:
        pass

    with pytest.raises(ValueError, match="process") as info:
        build_function_declaration(process)
    assert "'thing'" in str(info.value)
    assert "NotSupported" in str(info.value)


def test_unsupported_nested_type_raises_value_error() -> None:
    def process(things: list[NotSupported]) -> None:
        pass

    with pytest.raises(ValueError, match=r"'things'.*NotSupported"):
        build_function_declaration(process)


class Holder(BaseModel):
    model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)

    label: str
    content: NotSupported


def test_unsupported_model_field_names_the_parameter_and_type() -> None:
    def store(holder: Holder) -> None:
        pass

    with pytest.raises(ValueError) as info:
        build_function_declaration(store)
    message = str(info.value)
    assert "'store'" in message and "'holder'" in message
    assert "Holder" in message and "NotSupported" in message


def test_schema_for_model() -> None:
    schema = schema_for_model(Customer)
    assert schema.type is Type.OBJECT
    assert schema.required == ["name", "address"]
    assert schema.properties is not None
    address = schema.properties["address"]
    assert address.properties is not None
    assert address.properties["street"].description == "Street and number."
    with pytest.raises(ValueError, match=r"Holder.*'content'.*NotSupported"):
        schema_for_model(Holder)


def test_response_schema() -> None:
    def count() -> int:
        return 1

    def nothing() -> None:
        pass

    def untyped():  # type: ignore[no-untyped-def]
        return 1

    def odd() -> NotSupported:
        return NotSupported()

    response = build_function_declaration(count).response
    assert response is not None and response.type is Type.INTEGER
    assert build_function_declaration(nothing).response is None
    assert build_function_declaration(untyped).response is None
    assert build_function_declaration(odd).response is None


def test_declaration_round_trips_as_content_type() -> None:
    def f(a: int, b: Literal["x", "y"] = "x") -> None:
        """Does f."""

    declaration = build_function_declaration(f)
    assert isinstance(declaration, types.FunctionDeclaration)
    data = declaration.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert data["parameters"]["properties"]["b"] == {
        "type": "STRING",
        "enum": ["x", "y"],
        "default": "x",
    }
    assert types.FunctionDeclaration.model_validate(data) == declaration


# --- from __future__ import annotations -------------------------------------------------

FUTURE_SOURCE = '''
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal, Optional

from pydantic import BaseModel

if TYPE_CHECKING:
    from somewhere_else import ToolContext, Unknown


class Item(BaseModel):
    name: str
    qty: int = 1


def order(
    items: list[Item],
    note: Optional[str],
    mode: Literal["fast", "slow"] = "fast",
    tool_context: ToolContext | None = None,
) -> dict[str, int]:
    """Places an order.

    Args:
        items: What to order.
        note: A note for the shop.
    """
    return {}


def mystery(thing: Unknown, count: int) -> None:
    pass


@dataclasses.dataclass
class Box:
    content: Unknown


def pack(box: Box) -> None:
    pass
'''


@pytest.fixture(scope="module")
def future_module() -> Iterator[pytypes.ModuleType]:
    module = pytypes.ModuleType("pyadk_test_future_tools")
    sys.modules[module.__name__] = module
    exec(compile(FUTURE_SOURCE, "pyadk_test_future_tools.py", "exec"), module.__dict__)
    yield module
    del sys.modules[module.__name__]


def test_future_annotations_are_resolved(future_module: pytypes.ModuleType) -> None:
    declaration = build_function_declaration(future_module.order)
    assert declaration.parameters is not None
    props = declaration.parameters.properties
    assert props is not None
    assert list(props) == ["items", "note", "mode"]  # tool_context ignored though unresolvable
    items = props["items"]
    assert items.type is Type.ARRAY and items.description == "What to order."
    assert items.items is not None and items.items.type is Type.OBJECT
    assert items.items.properties is not None
    assert items.items.properties["qty"].type is Type.INTEGER
    assert props["note"].type is Type.STRING and props["note"].nullable is True
    assert props["mode"].enum == ["fast", "slow"]
    assert declaration.parameters.required == ["items"]
    assert declaration.response is not None and declaration.response.type is Type.OBJECT


def test_future_annotations_validation(future_module: pytypes.ModuleType) -> None:
    kwargs, errors = validate_arguments(
        future_module.order, {"items": [{"name": "tea", "qty": "2"}], "note": None}
    )
    assert errors == []
    assert isinstance(kwargs["items"][0], future_module.Item)
    assert kwargs["items"][0].qty == 2


def test_unresolvable_annotation(future_module: pytypes.ModuleType) -> None:
    with pytest.raises(ValueError, match=r"mystery.*'thing'.*Unknown"):
        build_function_declaration(future_module.mystery)
    # Validation still works: the unknown annotation accepts anything.
    kwargs, errors = validate_arguments(future_module.mystery, {"thing": object, "count": "4"})
    assert errors == []
    assert kwargs == {"thing": object, "count": 4}


def test_unresolvable_dataclass_field(future_module: pytypes.ModuleType) -> None:
    with pytest.raises(ValueError, match=r"pack.*'box'.*Unknown"):
        build_function_declaration(future_module.pack)


# --- build_arguments_model ------------------------------------------------------------


def test_arguments_model_fields_and_config() -> None:
    def f(a: int, b: str = "x", c: Customer | None = None, tool_context: Any = None) -> None:
        pass

    model = build_arguments_model(f)
    assert model is not None
    assert issubclass(model, BaseModel)
    assert set(model.model_fields) == {"a", "b", "c"}
    assert model.model_fields["a"].is_required()
    assert model.model_fields["b"].default == "x"
    assert model.model_config.get("extra") == "ignore"
    assert model.model_config.get("arbitrary_types_allowed") is True
    instance = model.model_validate({"a": "5", "unknown": 1})
    assert dict(instance) == {"a": 5, "b": "x", "c": None}


def test_arguments_model_is_cached() -> None:
    def f(a: int) -> None:
        pass

    first = build_arguments_model(f)
    assert first is not None
    assert build_arguments_model(f) is first
    assert build_arguments_model(f, ignore_params=["a"]) is not first


def test_arguments_model_allows_arbitrary_types() -> None:
    def f(thing: NotSupported) -> None:
        pass

    model = build_arguments_model(f)
    assert model is not None
    value = NotSupported()
    assert dict(model.model_validate({"thing": value}))["thing"] is value
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"thing": "text"})


def test_arguments_model_with_annotation_pydantic_rejects() -> None:
    def f(x: int, y: int) -> None:
        pass

    f.__annotations__["x"] = Required[int]  # pydantic refuses this qualifier outside TypedDict
    model = build_arguments_model(f)
    assert model is not None
    assert set(model.model_fields) == {"x", "y"}
    kwargs, errors = validate_arguments(f, {"x": "anything", "y": "2"})
    assert errors == []
    assert kwargs == {"x": "anything", "y": "2"}  # every field falls back to Any


def test_arguments_model_without_signature() -> None:
    assert build_arguments_model(max) is None
    assert validate_arguments(max, {"a": 1}) == ({"a": 1}, [])


# --- validate_arguments ---------------------------------------------------------------


def test_validate_coerces_values() -> None:
    def f(
        count: int,
        ratio: float,
        flag: bool,
        color: Color,
        customer: Customer,
        points: list[Point],
        when: Literal["now", "later"] = "now",
    ) -> None:
        pass

    kwargs, errors = validate_arguments(
        f,
        {
            "count": "3",
            "ratio": 2,
            "flag": "true",
            "color": "blue",
            "customer": {"name": "Ann", "address": {"street": "Main 1", "city": "X"}},
            "points": [{"x": "1.5"}],
            "when": "later",
            "extra": "dropped",
        },
    )
    assert errors == []
    assert kwargs["count"] == 3
    assert kwargs["ratio"] == 2.0 and isinstance(kwargs["ratio"], float)
    assert kwargs["flag"] is True
    assert kwargs["color"] is Color.BLUE
    assert isinstance(kwargs["customer"], Customer)
    assert isinstance(kwargs["customer"].address, Address)
    assert kwargs["customer"].address.city == "X"
    assert kwargs["points"] == [Point(x=1.5)]
    assert kwargs["when"] == "later"
    assert "extra" not in kwargs


def test_validate_reports_missing_and_type_errors() -> None:
    def f(a: int, b: str, c: Customer, d: float = 1.0) -> None:
        pass

    kwargs, errors = validate_arguments(
        f,
        {"b": "ok", "c": {"name": "Ann", "address": {"street": "s", "city": "c", "zip_code": "x"}}},
    )
    assert "missing mandatory parameter 'a'" in errors
    assert any(e.startswith("parameter 'c.address.zip_code': ") for e in errors)
    assert any("valid integer" in e for e in errors)
    assert len(errors) == 2
    assert kwargs == {"b": "ok"}  # the valid value is kept, no defaults are injected


def test_validate_type_error_message() -> None:
    def f(n: int, m: int) -> None:
        pass

    kwargs, errors = validate_arguments(f, {"n": "many", "m": "2"})
    assert errors == [
        "parameter 'n': Input should be a valid integer, unable to parse string as an integer"
    ]
    assert kwargs == {"m": 2}


def test_validate_does_not_inject_defaults_but_fills_nullable() -> None:
    marker = object()

    def f(a: int, note: str | None, extra: Any = marker) -> None:
        pass

    kwargs, errors = validate_arguments(f, {"a": 1})
    assert errors == []
    assert kwargs == {"a": 1, "note": None}


def test_validate_keeps_model_instances_and_ignores_tool_context() -> None:
    def f(customer: Customer, tool_context: Any) -> None:
        pass

    customer = Customer(name="Bo", address=Address(street="s", city="c"))
    kwargs, errors = validate_arguments(f, {"customer": customer, "tool_context": "x"})
    assert errors == []
    assert kwargs == {"customer": customer}


def test_validate_parameter_names_reserved_by_pydantic() -> None:
    def f(json: int, schema: str, _hidden: bool = False, model_config: str = "m") -> None:
        pass

    kwargs, errors = validate_arguments(f, {"json": "1", "schema": "s", "_hidden": "yes"})
    assert errors == []
    assert kwargs == {"json": 1, "schema": "s", "_hidden": True}
    assert set(_props(f)) == {"json", "schema", "_hidden", "model_config"}


def test_validate_unhashable_callable_object() -> None:
    @dataclasses.dataclass
    class Tool:
        unit: str = "m"

        def __call__(self, length: float) -> str:
            return f"{length}{self.unit}"

    tool = Tool()
    with pytest.raises(TypeError):
        hash(tool)
    kwargs, errors = validate_arguments(tool, {"length": "2"})
    assert errors == []
    assert kwargs == {"length": 2.0}
    assert tool(**kwargs) == "2.0m"


def test_function_tool_description_is_the_docstring_summary() -> None:
    from pyadk.tools import FunctionTool

    def lookup(city: str) -> str:
        """Looks up the weather.

        Args:
          city: the city name.
        """
        return city

    tool = FunctionTool(lookup)
    assert tool.description == "Looks up the weather."
    assert tool._get_declaration().description == tool.description
    tool.description = "Custom."
    assert tool.description == "Custom."
