"""Loading skill folders: SKILL.md, frontmatter validation, resources, listing."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from pyadk.skills import (
    Frontmatter,
    Skill,
    list_skills_in_dir,
    list_skills_in_dir_async,
    list_skills_in_gcs_dir,
    load_skill_from_dir,
    load_skill_from_dir_async,
    load_skill_from_gcs_dir,
    load_skill_from_gcs_dir_async,
    load_skills_from_dir,
    load_skills_from_dir_async,
)
from pyadk.skills.prompt import format_skills_as_xml

from .conftest import write_skill

PNG = b"\x89PNG\r\n\x1a\n\x00\xff\xfe"


def test_a_skill_folder_loads_with_its_frontmatter_body_and_resources(skills_root: Path) -> None:
    folder = write_skill(
        skills_root,
        "pdf-tools",
        header=(
            "name: pdf-tools\n"
            "description: Fills PDF forms.\n"
            "license: Apache-2.0\n"
            "compatibility: needs python3\n"
            "allowed-tools: Read Write\n"
            "metadata:\n  adk_additional_tools: [fill_form]\n  owner: docs-team\n"
            "version: 2\n"
        ),
        body="\n# Fill a form\n1. Read references/fields.md\n\n",
        files={
            "references/fields.md": "name, date",
            "references/deep/more.md": "nested",
            "assets/logo.png": PNG,
            "scripts/fill.py": "print('filled')",
            "scripts/__pycache__/fill.cpython-311.pyc": b"\x00junk",
            "scripts/blob.py": b"\xff\xfe not text",
        },
    )
    skill = load_skill_from_dir(folder)

    assert isinstance(skill, Skill)
    assert skill.name == "pdf-tools" and skill.description == "Fills PDF forms."
    assert skill.instructions == "# Fill a form\n1. Read references/fields.md"
    fm = skill.frontmatter
    assert (fm.license, fm.compatibility, fm.allowed_tools) == (
        "Apache-2.0",
        "needs python3",
        "Read Write",
    )
    assert fm.metadata == {"adk_additional_tools": ["fill_form"], "owner": "docs-team"}
    assert fm.model_extra == {"version": 2}  # unknown keys are kept
    assert fm.model_dump(by_alias=True)["allowed-tools"] == "Read Write"
    res = skill.resources
    assert res.references == {"deep/more.md": "nested", "fields.md": "name, date"}
    assert res.get_asset("logo.png") == PNG  # binary files stay bytes
    assert res.list_scripts() == ["fill.py"]  # no __pycache__, no non-UTF-8 script
    assert str(res.get_script("fill.py")) == "print('filled')"
    assert res.get_reference("missing.md") is None
    assert skill._uri == folder.resolve().as_uri()


def test_lowercase_skill_md_is_accepted(skills_root: Path) -> None:
    folder = write_skill(skills_root, "lower")
    (folder / "SKILL.md").rename(folder / "skill.md")
    assert load_skill_from_dir(folder).name == "lower"


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("description: no name\n", "name\n  Field required"),
        ("name: bad-desc\n", "description\n  Field required"),
        ("name: bad-desc\ndescription: ''\n", "description must not be empty"),
        ("name: Bad_Name\ndescription: x\n", "must be kebab-case"),
        ("name: -lead\ndescription: x\n", "must be kebab-case"),
        ("name: " + "a" * 65 + "\ndescription: x\n", "at most 64 characters"),
        ("name: x\ndescription: " + "d" * 1025 + "\n", "at most 1024 characters"),
        ("name: x\ndescription: x\ncompatibility: " + "c" * 501 + "\n", "at most 500"),
        ("name: x\ndescription: x\nmetadata:\n  adk_additional_tools: one\n", "must be a list"),
        ("name: x\ndescription: x\nmetadata:\n  adk_inject_state: 'yes'\n", "true or false"),
    ],
)
def test_bad_frontmatter_is_refused_with_the_field_named(
    skills_root: Path, header: str, message: str
) -> None:
    folder = write_skill(skills_root, "x", header=header)
    with pytest.raises(ValidationError) as info:
        load_skill_from_dir(folder)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\n", "must start with YAML frontmatter"),
        ("---\nname: x\ndescription: y\n", "not closed"),
        ("---\nname: [x\n---\nbody", "Invalid YAML in SKILL.md frontmatter"),
        ("---\n- a\n- b\n---\nbody", "must be a YAML mapping"),
    ],
)
def test_malformed_skill_md_is_a_value_error(skills_root: Path, text: str, message: str) -> None:
    folder = skills_root / "x"
    folder.mkdir()
    (folder / "SKILL.md").write_text(text)
    with pytest.raises(ValueError, match=message):
        load_skill_from_dir(folder)


def test_the_name_must_match_the_folder(skills_root: Path) -> None:
    folder = write_skill(skills_root, "folder-name", header="name: other-name\ndescription: x\n")
    with pytest.raises(ValueError, match="'other-name' does not match its directory name"):
        load_skill_from_dir(folder)


def test_a_folder_without_skill_md_or_a_missing_folder_is_not_found(skills_root: Path) -> None:
    (skills_root / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"SKILL\.md not found in"):
        load_skill_from_dir(skills_root / "empty")
    with pytest.raises(FileNotFoundError, match=r"Skill directory .* not found"):
        load_skill_from_dir(skills_root / "nowhere")


def test_load_skills_from_dir_loads_every_skill_folder_in_name_order(skills_root: Path) -> None:
    write_skill(skills_root, "beta")
    write_skill(skills_root, "alpha")
    (skills_root / "not-a-skill").mkdir()  # no SKILL.md: skipped
    (skills_root / "README.md").write_text("hi")
    assert [s.name for s in load_skills_from_dir(skills_root)] == ["alpha", "beta"]

    write_skill(skills_root, "gamma", header="name: wrong\ndescription: x\n")
    with pytest.raises(ValueError, match="'wrong' does not match"):
        load_skills_from_dir(skills_root)  # one invalid skill fails the whole load
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_skills_from_dir(skills_root / "missing")
    with pytest.raises(ValueError, match="is not a directory"):
        load_skills_from_dir(skills_root / "README.md")


def test_list_skills_in_dir_skips_invalid_skills(
    skills_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(skills_root, "good", description="Good one.")
    write_skill(skills_root, "bad", header="name: bad\n")
    (skills_root / "empty").mkdir()
    with caplog.at_level(logging.WARNING):
        listed = list_skills_in_dir(skills_root)
    assert list(listed) == ["good"]
    assert isinstance(listed["good"], Frontmatter) and listed["good"].description == "Good one."
    assert "Skipping invalid skill 'bad'" in caplog.text

    seen: list[str] = []
    list_skills_in_dir(skills_root, on_error=lambda name, exc: seen.append(name))
    assert seen == ["bad", "empty"]

    def abort(name: str, exc: Exception) -> None:
        raise RuntimeError(f"stop at {name}")

    with pytest.raises(RuntimeError, match="stop at bad"):
        list_skills_in_dir(skills_root, on_error=abort)
    assert list_skills_in_dir(skills_root / "missing") == {}


async def test_async_variants_give_the_same_results(skills_root: Path) -> None:
    write_skill(skills_root, "one")
    assert (await load_skill_from_dir_async(skills_root / "one")).name == "one"
    assert [s.name for s in await load_skills_from_dir_async(skills_root)] == ["one"]
    assert list(await list_skills_in_dir_async(skills_root)) == ["one"]


async def test_gcs_loading_is_not_built_and_says_what_to_do() -> None:
    with pytest.raises(NotImplementedError, match="load_skill_from_dir"):
        load_skill_from_gcs_dir("bucket", "skill")
    with pytest.raises(NotImplementedError, match="Google Cloud Storage"):
        list_skills_in_gcs_dir("bucket")
    with pytest.raises(NotImplementedError, match="load_skill_from_gcs_dir_async"):
        await load_skill_from_gcs_dir_async("bucket", "skill")


def test_the_catalog_xml_escapes_names_and_descriptions() -> None:
    skills = [Frontmatter(name="a-b", description="Use <this> & that")]
    assert format_skills_as_xml(skills) == (
        "<available_skills>\n<skill>\n<name>\na-b\n</name>\n<description>\n"
        "Use &lt;this&gt; &amp; that\n</description>\n</skill>\n</available_skills>"
    )
    assert format_skills_as_xml([]) == "<available_skills>\n</available_skills>"


def test_default_instruction_from_pyadk_skills_is_deprecated() -> None:
    import pyadk.skills
    from pyadk.tools.skill_toolset import DEFAULT_SKILL_SYSTEM_INSTRUCTION

    with pytest.warns(DeprecationWarning, match="pyadk.tools.skill_toolset"):
        assert pyadk.skills.DEFAULT_SKILL_SYSTEM_INSTRUCTION == DEFAULT_SKILL_SYSTEM_INSTRUCTION
