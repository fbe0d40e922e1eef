"""The guidance a SkillToolset adds to the system instruction."""

from __future__ import annotations

from collections.abc import Collection

LIST_SKILLS = "list_skills"
SEARCH_SKILLS = "search_skills"
LOAD_SKILL = "load_skill"
LOAD_SKILL_RESOURCE = "load_skill_resource"
RUN_SKILL_SCRIPT = "run_skill_script"


def build_skill_system_instruction(
    *,
    prefix: str | None = None,
    allowed_tools: Collection[str] | None = None,
    script_execution_enabled: bool = True,
) -> str:
    """How to use skills, naming the tools as the model sees them (``prefix_`` first).

    ``allowed_tools``: the base names of the toolset's tools that are offered; the others
    are listed as unavailable. ``script_execution_enabled=False`` leaves out
    ``run_skill_script`` and says scripts can only be read.
    """
    p = f"{prefix}_" if prefix else ""
    load, resource, run = f"{p}{LOAD_SKILL}", f"{p}{LOAD_SKILL_RESOURCE}", f"{p}{RUN_SKILL_SCRIPT}"
    scripts = (
        "- scripts/ (optional): programs of the skill that you can run.\n"
        if script_execution_enabled
        else f"- scripts/ (optional): programs of the skill; you cannot run them here, but "
        f"you can read one with `{resource}` and apply it yourself.\n"
    )
    steps = [
        f'When a skill fits the user\'s request, call `{load}` with skill_name="<name>" '
        "and read its instructions before doing anything else.",
        "Then follow those instructions step by step, all of them and in their order, "
        "before you answer the user.",
        f"`{resource}` reads files bundled with a skill (references/..., assets/..., "
        "scripts/...). Use it only for skill files, never for files the user gives you, "
        "and use no other tool to read skill files.",
    ]
    if script_execution_enabled:
        steps.append(
            f"`{run}` runs a script of a skill's scripts/ folder; read it first with "
            f"`{resource}` when you need to know what it does."
        )
    steps.append(
        f"When `{resource}` returns an error, do not try other paths: tell the user "
        "about the error and stop."
    )
    if script_execution_enabled:
        steps.append(
            f"When `{run}` returns an error (e.g. SCRIPT_NOT_FOUND), do not retry it or "
            "guess another script: tell the user about the error and stop."
        )
    steps.append(
        f"`{load}` only gives you instructions; your turn is not over. Right after it, "
        "keep going in the same turn: call the tools the skill asks for, then write "
        "your answer. Never end a turn with an empty answer after loading a skill."
    )
    text = (
        "You have 'skills': folders of instructions and files for specialised tasks. "
        "Work with them only through the skill tools.\n\n"
        "A skill folder holds:\n"
        "- SKILL.md (always): the skill's name, description and instructions.\n"
        "- references/ (optional): more documentation and examples.\n"
        "- assets/ (optional): templates, data and other files the skill uses.\n"
        + scripts
        + "\nRules:\n"
        + "".join(f"{n}. {step}\n" for n, step in enumerate(steps, start=1))
    )
    if allowed_tools is not None:
        banned = [
            f"`{p}{name}`"
            for name in (RUN_SKILL_SCRIPT, LOAD_SKILL_RESOURCE, LOAD_SKILL, LIST_SKILLS)
            if name not in allowed_tools
        ]
        if banned:
            text += (
                f"\nThese tools are NOT available, do not call them: {', '.join(banned)}. "
                "Apply a loaded skill's instructions yourself and give your answer as "
                "ordinary text, never inside a tool call.\n"
            )
    return text
