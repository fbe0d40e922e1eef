"""A SkillRegistry: search_skills and skills loaded by name from it."""

from __future__ import annotations

from pathlib import Path

from pyadk.agents import LlmAgent
from pyadk.skills import Frontmatter, Skill, SkillRegistry, load_skill_from_dir
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools.skill_toolset import SkillToolset

from .conftest import write_skill
from .test_toolset import responses


class FolderRegistry(SkillRegistry):
    """Skills of a folder, found by a word of their description."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.fetched: list[str] = []

    async def get_skill(self, *, name: str) -> Skill:
        self.fetched.append(name)
        if name == "broken":
            raise ConnectionError("registry down")
        return load_skill_from_dir(self.root / name)

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        if query == "fail":
            raise RuntimeError("index offline")
        found = []
        for name in sorted(p.name for p in self.root.iterdir()):
            skill = load_skill_from_dir(self.root / name)
            if query in skill.description:
                found.append(skill.frontmatter)
        return found

    def search_tool_description(self) -> str | None:
        return "Finds skills by a word of their description."


async def test_the_model_searches_the_registry_and_loads_from_it(tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    write_skill(remote, "tax-forms", description="Fills tax forms.", body="Use form 1040.")
    write_skill(remote, "local-dup", description="Fills shadowed forms.")
    local = write_skill(tmp_path / "local", "local-dup", description="Local copy.")
    registry = FolderRegistry(remote)
    toolset = SkillToolset([load_skill_from_dir(local)], registry=registry)
    model = ScriptedModel(
        [
            function_call("search_skills", {"query": "Fills"}),
            function_call("load_skill", {"skill_name": "tax-forms"}),
            function_call("load_skill", {"skill_name": "broken"}),
            function_call("search_skills", {"query": "fail"}),
            function_call("search_skills", {}),
            "done",
        ]
    )
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[toolset])).run("taxes")

    found, loaded, broken, failed, missing = responses(events)
    # The local skill of the same name hides the registry's.
    assert [r["name"] for r in found["result"]] == ["tax-forms"]
    assert loaded["instructions"] == "Use form 1040."
    assert broken == {
        "error": "Failed to fetch skill 'broken' from the registry: registry down",
        "error_code": "REGISTRY_ERROR",
    }
    assert failed["error_code"] == "REGISTRY_ERROR" and "index offline" in failed["error"]
    assert missing["error_code"] == "INVALID_ARGUMENTS"

    request = model.requests[0]
    assert "search_skills" in request.declared_function_names()
    declaration = next(
        d for d in request.config.tools[0].function_declarations if d.name == "search_skills"
    )
    assert declaration.description == "Finds skills by a word of their description."
    assert "look for more in the registry with `search_skills`" in (
        request.config.system_instruction
    )


async def test_a_registry_skill_is_fetched_once_per_invocation(tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    write_skill(remote, "tax-forms", files={"references/a.md": "A", "references/b.md": "B"})
    registry = FolderRegistry(remote)
    model = ScriptedModel(
        [
            function_call("load_skill", {"skill_name": "tax-forms"}),
            function_call(
                "load_skill_resource", {"skill_name": "tax-forms", "file_path": "references/a.md"}
            ),
            "done",
        ]
    )
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[SkillToolset(registry=registry)]))
    events = await runner.run("one")
    assert responses(events)[1]["content"] == "A"
    assert registry.fetched == ["tax-forms"]
    model.replies.append("again")  # a new invocation fetches afresh
    await runner.run("two")
    assert registry.fetched == ["tax-forms", "tax-forms"]
