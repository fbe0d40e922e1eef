"""pyadk's models read their fields through CPython's plain attribute lookup.

pydantic's ``__getattr__`` keeps CPython 3.11 from specializing attribute reads on
model classes; :mod:`pyadk.utils.attribute_lookup` gives qualifying pyadk classes the
plain lookup back once a Runner exists. These tests pin that it changes nothing a
program can see: values, errors, private attributes and extra fields of subclasses,
and a program's own ``__getattr__``.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from pyadk import types
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.models.llm_request import LlmRequest
from pyadk.runners import InMemoryRunner
from pyadk.sessions.session import Session
from pyadk.utils import attribute_lookup
from pyadk.utils.attribute_lookup import has_plain_lookup, qualifies

APPLIES = attribute_lookup._Slot.find() is not None
needs_slot = pytest.mark.skipif(not APPLIES, reason="not a CPython this applies to")


@pytest.fixture(autouse=True)
def _enabled() -> None:
    InMemoryRunner(agent=SequentialAgent(name="root"))  # a runner enables it


def test_it_applies_to_this_interpreter() -> None:
    if sys.implementation.name == "cpython" and sys.version_info[:2] in {(3, 11), (3, 12), (3, 13)}:
        assert APPLIES


@needs_slot
@pytest.mark.parametrize(
    "cls",
    [
        Event,
        EventActions,
        types.Part,
        types.Content,
        LlmRequest,
        Session,
        LlmAgent,
        SequentialAgent,
    ],
)
def test_pyadk_models_on_the_hot_path_have_plain_lookup(cls: type) -> None:
    assert has_plain_lookup(cls)


def test_pydantic_models_of_a_program_keep_pydantic_lookup() -> None:
    class Mine(BaseModel):
        x: int = 1

    assert not has_plain_lookup(Mine)
    assert not has_plain_lookup(BaseModel)


def test_fields_properties_and_methods_read_as_before() -> None:
    event = Event(author="a", content=types.Content(role="model", parts=[types.Part(text="hi")]))
    assert event.author == "a"
    assert event.content is not None and event.content.text == "hi"  # a property
    assert event.is_final_response()
    assert getattr(event, "nope", 7) == 7
    assert not hasattr(event, "nope")


def test_a_missing_attribute_raises_what_pydantic_raises() -> None:
    class Twin(BaseModel):  # keeps pydantic's lookup
        author: str = "a"

    with pytest.raises(AttributeError) as plain:
        Event(author="a").nope  # noqa: B018
    with pytest.raises(AttributeError) as pydantics:
        Twin().nope  # noqa: B018
    assert str(plain.value) == str(pydantics.value).replace("Twin", "Event")
    assert str(plain.value) == "'Event' object has no attribute 'nope'"


def test_an_attribute_error_of_a_property_comes_through() -> None:
    class WithProperty(Event):
        @property
        def broken(self) -> Any:
            raise AttributeError("inner detail")

    with pytest.raises(AttributeError, match="inner detail"):
        WithProperty(author="a").broken  # noqa: B018


def test_a_subclass_with_private_attributes_keeps_pydantic_lookup() -> None:
    class Tagged(Event):
        _tag: str = PrivateAttr(default="t")

    assert not qualifies(Tagged)
    assert not has_plain_lookup(Tagged)
    tagged = Tagged(author="a")
    assert tagged._tag == "t"
    tagged._tag = "u"
    assert tagged._tag == "u"


def test_a_subclass_that_allows_extra_fields_keeps_pydantic_lookup() -> None:
    class Loose(types.Part):
        model_config = ConfigDict(extra="allow")

    assert not has_plain_lookup(Loose)
    assert Loose(text="x", shade="blue").shade == "blue"  # type: ignore[attr-defined]


def test_a_subclass_with_its_own_getattr_keeps_it() -> None:
    class Defaulting(Event):
        def __getattr__(self, name: str) -> Any:
            return f"default {name}"

    assert not has_plain_lookup(Defaulting)
    assert Defaulting(author="a").colour == "default colour"


@needs_slot
def test_a_plain_subclass_gets_plain_lookup_too() -> None:
    class Plain(Event):
        note: str | None = None

    assert has_plain_lookup(Plain)
    assert Plain(author="a", note="n").note == "n"


@needs_slot
def test_assigning_getattr_later_brings_the_hook_back() -> None:
    class Later(Event):
        pass

    assert has_plain_lookup(Later)
    Later.__getattr__ = lambda self, name: 42  # type: ignore[method-assign, assignment]
    assert not has_plain_lookup(Later)
    assert Later(author="a").anything == 42  # type: ignore[attr-defined]


@needs_slot
def test_a_deferred_schema_build_keeps_plain_lookup() -> None:
    class Deferred(types.Part):
        extra_note: str | None = None

    assert has_plain_lookup(Deferred)
    assert Deferred(text="x", extra_note="y").extra_note == "y"  # builds the validator
    assert has_plain_lookup(Deferred)


def test_an_llm_agent_keeps_its_derived_caches_per_object() -> None:
    agent = LlmAgent(name="a", model="gemini-2.0-flash")
    cache = agent._cache
    assert agent._cache is cache
    copy = agent.model_copy()
    assert copy._cache is not cache
    assert agent.model_dump()["name"] == "a"
    assert "_derived" not in agent.model_dump()


def _in_fresh_process(code: str, **env: str) -> str:
    import os

    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


_PROBE = (
    "from pyadk.agents import SequentialAgent\n"
    "from pyadk.events.event import Event\n"
    "from pyadk.runners import InMemoryRunner\n"
    "from pyadk.utils.attribute_lookup import has_plain_lookup\n"
    "before = has_plain_lookup(Event)\n"
    "InMemoryRunner(agent=SequentialAgent(name='r'))\n"
    "print(before, has_plain_lookup(Event))\n"
)


@needs_slot
def test_the_first_runner_turns_it_on() -> None:
    assert _in_fresh_process(_PROBE) == "False True"


def test_the_environment_switch_turns_it_off() -> None:
    assert _in_fresh_process(_PROBE, PYADK_PLAIN_ATTRIBUTE_LOOKUP="0") == "False False"
