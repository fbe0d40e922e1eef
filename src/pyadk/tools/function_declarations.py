"""Tool schemas (function declarations) and argument validation built from Python callables."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import enum
import functools
import inspect
import sys
import types as pytypes
import typing
import uuid
from collections import abc
from collections.abc import Callable, Collection
from typing import Any, NamedTuple

import pydantic
from pydantic.fields import FieldInfo
from pydantic_core import PydanticSerializationError, PydanticUndefined, to_jsonable_python

from pyadk import types
from pyadk.types import Schema, Type

DEFAULT_IGNORED_PARAMS: tuple[str, ...] = ("tool_context", "input_stream")

_SCALARS = {bool: Type.BOOLEAN, int: Type.INTEGER, float: Type.NUMBER, str: Type.STRING}
_FORMATS = {datetime.datetime: "date-time", datetime.date: "date", uuid.UUID: "uuid"}
_ARRAYS = {list, tuple, set, frozenset, abc.Sequence, abc.MutableSequence, abc.Set, abc.Iterable}
_OBJECTS = {dict, abc.Mapping, abc.MutableMapping}
_NONE_TYPES = (None, type(None))
_Field = tuple[str, Any, str | None, bool, Any]  # name, annotation, description, required, default


class _UnsupportedTypeError(Exception):
    """An annotation with no schema; ``args[0]`` is the innermost offending annotation."""


class _Param(NamedTuple):
    name: str
    parameter: inspect.Parameter
    hint: Any  # the resolved annotation, ``inspect.Parameter.empty`` when there is none


def _type_repr(annotation: Any) -> str:
    return annotation.__qualname__ if isinstance(annotation, type) else repr(annotation)


def _unsupported(exc: _UnsupportedTypeError, what: str) -> str:
    inner, field, outer = (_type_repr(exc.args[0]), *exc.args[1:])
    detail = "" if inner == _type_repr(outer) else f" (unsupported: {inner})"
    return f"{what} {field!r} has unsupported type {_type_repr(outer)}{detail}."


def _hint_target(func: Callable[..., Any]) -> Any:
    """The object whose annotations, globals and docstring describe ``func``."""
    while isinstance(func, functools.partial):
        func = func.func
    if inspect.isroutine(func) or inspect.isclass(func):
        return func
    return type(func).__call__  # a callable object


def _resolve_hints(target: Any) -> dict[str, Any]:
    """Type hints of ``target``; unresolvable ones are left out rather than failing them all."""
    with contextlib.suppress(Exception):  # e.g. a name only imported under TYPE_CHECKING
        return typing.get_type_hints(target, include_extras=True)
    raw = getattr(target, "__annotations__", None) or {}
    unwrapped = inspect.unwrap(target) if callable(target) else target
    module = sys.modules.get(getattr(unwrapped, "__module__", None) or "")
    globalns = getattr(unwrapped, "__globals__", None) or getattr(module, "__dict__", {})
    hints: dict[str, Any] = {}
    for key, value in raw.items():
        with contextlib.suppress(Exception):  # evaluates string annotations as typing does
            hints[key] = eval(value, dict(globalns)) if isinstance(value, str) else value
    return hints


def _declared_params(
    func: Callable[..., Any], ignore_params: Collection[str]
) -> tuple[list[_Param], Any] | None:
    """The parameters a model may pass and the return hint; None if there is no signature."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    hints = _resolve_hints(_hint_target(func))
    params: list[_Param] = []
    for index, (name, parameter) in enumerate(signature.parameters.items()):
        variadic = parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        if variadic or name in ignore_params or (index == 0 and name in ("self", "cls")):
            continue
        # An annotation that could not be resolved stays a string: unsupported, or Any.
        params.append(_Param(name, parameter, hints.get(name, parameter.annotation)))
    return params, hints.get("return", signature.return_annotation)


def _parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """The description (without Args/Returns sections) and the per-parameter descriptions."""
    if not doc or not doc.strip():
        return None, {}
    import docstring_parser  # lazy: keeps ``import pyadk`` fast

    cleaned = inspect.cleandoc(doc)
    try:
        parsed = docstring_parser.parse(cleaned)
    except docstring_parser.ParseError:
        return cleaned, {}
    params = {p.arg_name.lstrip("*"): p.description.strip() for p in parsed.params if p.description}
    if not parsed.meta:
        return cleaned, params
    return (parsed.description or "").strip() or None, params


def _json_default(value: Any) -> Any:
    try:
        return to_jsonable_python(value)
    except (PydanticSerializationError, TypeError, ValueError):
        return None


def _annotated_description(annotation: Any, metadata: Collection[Any] = ()) -> str | None:
    """The description in an ``Annotated`` type's metadata (or in ``metadata``), if any."""
    for item in (*getattr(annotation, "__metadata__", ()), *metadata):
        if isinstance(item, str) and item.strip():
            return item.strip()
        if isinstance(item, FieldInfo) and item.description:
            return item.description
    return None


def _enum_schema(values: list[Any]) -> Schema:
    if values and all(isinstance(v, bool) for v in values):
        return Schema(type=Type.BOOLEAN)
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return Schema(type=Type.INTEGER, enum=[str(v) for v in values])
    return Schema(type=Type.STRING, enum=[str(v) for v in values])


def _object_schema(fields: list[_Field], seen: tuple[Any, ...]) -> Schema:
    """An OBJECT schema from (name, annotation, description, required, default) tuples."""
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for name, annotation, description, is_required, default in fields:
        try:
            prop = _schema_for(annotation, seen)
        except _UnsupportedTypeError as exc:  # report the outermost field, innermost type
            raise _UnsupportedTypeError(exc.args[0], name, annotation) from None
        if description and not _annotated_description(annotation):  # Annotated wins
            prop.description = description
        if is_required:
            required.append(name)
        elif default is not None:
            prop.default = default
        properties[name] = prop
    return Schema(type=Type.OBJECT, properties=properties, required=required or None)


def _class_description(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip() or doc.startswith(f"{cls.__name__}("):
        return None  # no docstring, or the signature ``dataclasses`` sets as one
    return inspect.cleandoc(doc)


def _class_schema(cls: type, seen: tuple[Any, ...]) -> Schema:
    """The OBJECT schema of a pydantic model or a dataclass, from its fields."""
    fields: list[_Field] = []
    if issubclass(cls, pydantic.BaseModel):
        for name, info in cls.model_fields.items():
            key = info.alias if isinstance(info.alias, str) else name
            description = info.description or _annotated_description(None, info.metadata)
            default = None if info.default is PydanticUndefined else _json_default(info.default)
            fields.append((key, info.annotation, description, info.is_required(), default))
    else:
        hints = _resolve_hints(cls)  # an unresolvable field type stays a string: unsupported
        for field in dataclasses.fields(typing.cast(Any, cls)):
            no_default = field.default is dataclasses.MISSING
            required = no_default and field.default_factory is dataclasses.MISSING
            default = None if no_default else _json_default(field.default)
            annotation = hints.get(field.name, field.type)
            description = field.metadata.get("description")
            fields.append((field.name, annotation, description, required, default))
    schema = _object_schema(fields, (*seen, cls))
    schema.description = _class_description(cls)
    return schema


def _schema_for(annotation: Any, seen: tuple[Any, ...] = ()) -> Schema:
    """The schema of one annotation; raises ``_UnsupportedTypeError`` when there is none."""
    if annotation in (inspect.Parameter.empty, Any, object):
        return Schema()
    if annotation in _NONE_TYPES:
        return Schema(type=Type.NULL)
    if isinstance(annotation, typing.NewType):
        return _schema_for(annotation.__supertype__, seen)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema = _schema_for(args[0], seen)
        schema.description = _annotated_description(annotation) or schema.description
        return schema
    if origin in (typing.Union, pytypes.UnionType, typing.Literal):
        options = [a for a in args if a not in _NONE_TYPES]
        if origin is typing.Literal:
            schema = _enum_schema(options)
        elif len(options) == 1:
            schema = _schema_for(options[0], seen)
        else:
            schema = Schema(any_of=[_schema_for(a, seen) for a in options])
        if len(options) < len(args):
            schema.nullable = True
        return schema
    if origin in _ARRAYS or (isinstance(annotation, type) and annotation in _ARRAYS):
        item_args = [a for i, a in enumerate(args) if a is not Ellipsis and a not in args[:i]]
        items = [_schema_for(a, seen) for a in item_args]
        mixed = Schema(any_of=items) if len(items) > 1 else None  # tuple[int, str]
        return Schema(type=Type.ARRAY, items=items[0] if len(items) == 1 else mixed)
    if origin in _OBJECTS or (isinstance(annotation, type) and annotation in _OBJECTS):
        if args and args[1] not in (Any, object):
            _schema_for(args[1], seen)  # only checks the value type is supported
        return Schema(type=Type.OBJECT)
    if not isinstance(annotation, type) or origin is not None:
        raise _UnsupportedTypeError(annotation)
    if issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation])
    if annotation in _FORMATS:
        return Schema(type=Type.STRING, format=_FORMATS[annotation])
    if annotation in seen:  # a recursive type: stop at an open object
        return Schema(type=Type.OBJECT)
    if issubclass(annotation, pydantic.BaseModel) or dataclasses.is_dataclass(annotation):
        return _class_schema(annotation, seen)
    for base, schema_type in (*_SCALARS.items(), (dict, Type.OBJECT)):  # subclasses too
        if issubclass(annotation, base):
            return Schema(type=schema_type)
    raise _UnsupportedTypeError(annotation)


def _function_name(func: Callable[..., Any]) -> str:
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", None) or type(func).__name__


def _function_docs(func: Callable[..., Any]) -> tuple[str | None, dict[str, str]]:
    target = _hint_target(func)
    description, params = _parse_docstring(getattr(target, "__doc__", None))
    if target is type(func).__call__:  # an object: its class docstring may describe it too
        class_description, class_params = _parse_docstring(_class_description(type(func)))
        return class_description or description, {**params, **class_params}
    return description, params


def build_function_declaration(
    func: Callable[..., Any],
    *,
    ignore_params: Collection[str] = DEFAULT_IGNORED_PARAMS,
    name: str | None = None,
) -> types.FunctionDeclaration:
    """The declaration of ``func`` as a tool: name, description, parameters and response.

    Raises:
        ValueError: if a parameter's annotation has no schema (e.g. a plain custom class).
    """
    func_name = name or _function_name(func)
    description, docs = _function_docs(func)
    params, return_hint = _declared_params(func, ignore_params) or ([], inspect.Parameter.empty)
    fields: list[_Field] = []
    for key, parameter, hint in params:
        no_default = parameter.default is inspect.Parameter.empty
        default = None if no_default else _json_default(parameter.default)
        required = no_default and not _is_nullable(hint)  # ``x: int | None`` is optional
        fields.append((key, hint, docs.get(key), required, default))
    try:
        parameters = _object_schema(fields, ()) if fields else None
    except _UnsupportedTypeError as exc:
        raise ValueError(
            f"Cannot declare {func_name!r}: {_unsupported(exc, 'parameter')}"
        ) from None
    response = None
    if return_hint not in (inspect.Parameter.empty, *_NONE_TYPES, Any, object):
        with contextlib.suppress(_UnsupportedTypeError):  # an odd return type is no error
            response = _schema_for(return_hint)
    return types.FunctionDeclaration(
        name=func_name, description=description, parameters=parameters, response=response
    )


def schema_for_model(model: type[pydantic.BaseModel]) -> Schema:
    """The OBJECT schema of a pydantic model's (or dataclass') fields; ValueError if none."""
    try:
        return _class_schema(model, ())
    except _UnsupportedTypeError as exc:
        message = _unsupported(exc, "field")
        raise ValueError(f"Cannot build a schema for {model.__qualname__}: {message}") from None


class _ArgumentsSpec(NamedTuple):
    model: type[pydantic.BaseModel]
    lenient: type[pydantic.BaseModel]  # all fields optional: validates only what was given
    fields: dict[str, str]  # parameter name -> model field name
    implicit_none: frozenset[str]  # nullable parameters without a default: passed None


_CONFIG = pydantic.ConfigDict(extra="ignore", arbitrary_types_allowed=True, protected_namespaces=())


def _create_model(name: str, fields: dict[str, Any]) -> type[pydantic.BaseModel]:
    try:
        return pydantic.create_model(name, __config__=_CONFIG, **fields)
    except Exception:  # an annotation pydantic cannot validate: accept anything
        untyped: dict[str, Any] = {key: (Any, default) for key, (_, default) in fields.items()}
        return pydantic.create_model(name, __config__=_CONFIG, **untyped)


def _is_nullable(annotation: Any) -> bool:
    try:
        return bool(_schema_for(annotation).nullable)
    except Exception:  # unsupported or broken: validation will tell
        return False


def _build_spec(func: Callable[..., Any], ignore_params: Collection[str]) -> _ArgumentsSpec | None:
    declared = _declared_params(func, ignore_params)
    if declared is None:
        return None
    fields: dict[str, str] = {}
    strict: dict[str, Any] = {}
    lenient: dict[str, Any] = {}
    implicit_none: set[str] = set()
    for key, parameter, hint in declared[0]:
        annotation = Any if hint is inspect.Parameter.empty or isinstance(hint, str) else hint
        default = parameter.default
        if default is inspect.Parameter.empty:
            default = None if _is_nullable(annotation) else ...
            if default is None:
                implicit_none.add(key)
        reserved = key.startswith("_") or hasattr(pydantic.BaseModel, key)  # e.g. ``json``
        field = fields[key] = f"param_{len(fields)}_{key.lstrip('_')}" if reserved else key
        strict[field] = (annotation, pydantic.Field(default, alias=key))
        lenient[field] = (annotation, pydantic.Field(None, alias=key))
    name = f"{_function_name(func)}_arguments"
    models = _create_model(name, strict), _create_model(name, lenient)
    return _ArgumentsSpec(*models, fields, frozenset(implicit_none))


_cached_spec = functools.lru_cache(maxsize=512)(_build_spec)


def _arguments_spec(func: Callable[..., Any], ignore: Collection[str]) -> _ArgumentsSpec | None:
    try:
        return _cached_spec(func, frozenset(ignore))
    except TypeError:  # an unhashable callable object: no caching
        return _build_spec(func, ignore)


def build_arguments_model(
    func: Callable[..., Any], *, ignore_params: Collection[str] = DEFAULT_IGNORED_PARAMS
) -> type[pydantic.BaseModel] | None:
    """A pydantic model with one field per declared parameter of ``func`` (cached).

    Fields keep the real annotations and defaults and have the parameter names as aliases (a
    name pydantic reserves, like ``json``, gets another field name). None without a signature.
    """
    spec = _arguments_spec(func, ignore_params)
    return spec.model if spec is not None else None


def _format_error(error: Any) -> str:
    if error["type"] == "missing" and len(error["loc"]) == 1:
        return f"missing mandatory parameter '{error['loc'][0]}'"
    return f"parameter '{'.'.join(str(part) for part in error['loc'])}': {error['msg']}"


def validate_arguments(
    func: Callable[..., Any],
    args: dict[str, Any],
    *,
    ignore_params: Collection[str] = DEFAULT_IGNORED_PARAMS,
) -> tuple[dict[str, Any], list[str]]:
    """Validates and coerces ``args`` for ``func``: (kwargs to call it with, error messages).

    Only declared parameters are kept (unknown keys are dropped); valid values are kept even
    when others fail. Errors name missing mandatory parameters and wrongly typed values.
    """
    spec = _arguments_spec(func, ignore_params)
    if spec is None:
        return dict(args), []
    if not spec.fields and not spec.implicit_none:  # no parameters: nothing to validate
        return {}, []
    data = {name: args[name] for name in spec.fields if name in args}
    wanted = set(data) | spec.implicit_none
    errors: list[str] = []
    try:
        instance = spec.model.model_validate(data)
    except pydantic.ValidationError as exc:
        errors = [_format_error(error) for error in exc.errors()]
        wanted -= {str(error["loc"][0]) for error in exc.errors()}  # locs are parameter names
        instance = spec.lenient.model_validate({k: v for k, v in data.items() if k in wanted})
    return {p: getattr(instance, field) for p, field in spec.fields.items() if p in wanted}, errors
