"""SkillToolset through a Runner with a scripted model: the tools and the request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyadk.agents import LlmAgent
from pyadk.code_executors import SandboxedCodeExecutor
from pyadk.events import Event
from pyadk.skills import load_skill_from_dir, load_skills_from_dir
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools.skill_toolset import (
    DEFAULT_SKILL_SYSTEM_INSTRUCTION,
    SkillDiscoveryMode,
    SkillToolset,
)

from .conftest import write_skill

PNG = b"\x89PNG\r\n\x1a\nbinary\xff"


def responses(events: list[Event]) -> list[dict[str, Any]]:
    """The function responses of a run, in order."""
    return [
        part.function_response.response
        for event in events
        for part in (event.content.parts if event.content else [])
        if part.function_response is not None
    ]


@pytest.fixture
def toolset(skills_root: Path) -> SkillToolset:
    write_skill(
        skills_root,
        "weather-report",
        description="Writes a weather report for a city.",
        body="# Report\nRun scripts/report.py with --city.",
        files={
            "references/style.md": "Short sentences.",
            "assets/map.png": PNG,
            "scripts/report.py": (
                "import argparse, pathlib\n"
                "p = argparse.ArgumentParser()\n"
                "p.add_argument('--city')\n"
                "p.add_argument('-u')\n"
                "p.add_argument('rest', nargs='*')\n"
                "a = p.parse_args()\n"
                "style = pathlib.Path('references/style.md').read_text()\n"
                "print(f'{a.city} {a.u} {a.rest}: sunny. {style}')\n"
            ),
            "scripts/fail.py": "import sys\nprint('partial')\nraise SystemExit('bad input')\n",
            "scripts/crash.py": "1 / 0\n",
            "scripts/slow.py": "while True:\n    pass\n",
            "scripts/warn.py": "import sys\nprint('ok')\nprint('careful', file=sys.stderr)\n",
            "scripts/hello.sh": 'echo hello "$1"\n',
            "scripts/notes.txt": "not a script",
        },
    )
    write_skill(skills_root, "greeting", description="Greets <people> & pets.")
    return SkillToolset(
        load_skills_from_dir(skills_root),
        code_executor=SandboxedCodeExecutor(timeout_seconds=20),
    )


async def run_calls(toolset: SkillToolset, *calls: Any, **agent: Any) -> tuple[list, ScriptedModel]:
    model = ScriptedModel([*calls, "done"])
    runner = TestRunner(LlmAgent(name="helper", model=model, tools=[toolset], **agent))
    events = await runner.run("help me")
    return events, model


async def test_list_skills_returns_the_catalog(toolset: SkillToolset) -> None:
    events, _ = await run_calls(toolset, function_call("list_skills"))
    xml = responses(events)[0]["result"]
    # Skills in folder-name order, names and descriptions escaped.
    assert xml.startswith("<available_skills>\n<skill>\n<name>\ngreeting\n</name>\n")
    assert "<description>\nGreets &lt;people&gt; &amp; pets.\n</description>" in xml
    assert "<name>\nweather-report\n</name>" in xml


async def test_load_skill_returns_instructions_and_records_the_activation(
    toolset: SkillToolset,
) -> None:
    model = ScriptedModel([function_call("load_skill", {"skill_name": "weather-report"}), "ok"])
    runner = TestRunner(LlmAgent(name="helper", model=model, tools=[toolset]))
    result = responses(await runner.run("hi"))[0]
    assert result["skill_name"] == "weather-report"
    assert result["instructions"] == "# Report\nRun scripts/report.py with --city."
    assert result["frontmatter"]["description"] == "Writes a weather report for a city."
    session = await runner.session()
    assert session.state["_adk_activated_skill_helper"] == ["weather-report"]


async def test_unknown_skills_and_missing_arguments_are_error_results(
    toolset: SkillToolset,
) -> None:
    events, _ = await run_calls(
        toolset,
        function_call("load_skill", {"skill_name": "nope"}),
        function_call("load_skill", {}),
        function_call("load_skill_resource", {"skill_name": "nope", "file_path": "assets/a"}),
        function_call("run_skill_script", {"skill_name": "weather-report"}),
    )
    assert responses(events) == [
        {"error": "Skill 'nope' not found.", "error_code": "SKILL_NOT_FOUND"},
        {"error": "Argument 'skill_name' is required.", "error_code": "INVALID_ARGUMENTS"},
        {"error": "Skill 'nope' not found.", "error_code": "SKILL_NOT_FOUND"},
        {"error": "Argument 'file_path' is required.", "error_code": "INVALID_ARGUMENTS"},
    ]
    assert events[-1].text == "done"  # the run goes on


async def test_load_skill_resource_reads_text_and_shows_binary_files(
    toolset: SkillToolset,
) -> None:
    events, model = await run_calls(
        toolset,
        function_call(
            "load_skill_resource",
            {"skill_name": "weather-report", "file_path": "references/style.md"},
        ),
        function_call(
            "load_skill_resource",
            {"skill_name": "weather-report", "file_path": "scripts/report.py"},
        ),
        function_call(
            "load_skill_resource", {"skill_name": "weather-report", "file_path": "assets/map.png"}
        ),
    )
    text, script, binary = responses(events)
    assert text == {
        "skill_name": "weather-report",
        "file_path": "references/style.md",
        "content": "Short sentences.",
    }
    assert "argparse" in script["content"]
    assert "content" not in binary and binary["status"].startswith("Binary file detected")
    # The next request carries the image as inline data after the tool response.
    injected = model.requests[3].contents[-1]
    assert injected.role == "user"
    assert injected.parts[0].text == "The content of binary file 'assets/map.png' is:"
    assert injected.parts[1].inline_data.data == PNG
    assert injected.parts[1].inline_data.mime_type == "image/png"
    # The request before had no such part: it comes with the binary file's response only.
    assert all(p.inline_data is None for p in model.requests[2].contents[-1].parts)


async def test_missing_resources_then_a_fatal_error_and_traversal_is_refused(
    toolset: SkillToolset,
) -> None:
    def read(path: str) -> Any:
        return function_call(
            "load_skill_resource", {"skill_name": "weather-report", "file_path": path}
        )

    events, _ = await run_calls(
        toolset,
        read("references/nope.md"),
        read("references/../SKILL.md"),
        read("/etc/passwd"),
        read("assets/../../secret"),
        read("assets/other.md"),
    )
    missing, traversal, absolute, climbing, fatal = responses(events)
    assert missing == {
        "error": "Resource 'references/nope.md' not found in skill 'weather-report'.",
        "error_code": "RESOURCE_NOT_FOUND",
    }
    assert traversal == {
        "error": "Path traversal detected: 'references/../SKILL.md'",
        "error_code": "INVALID_RESOURCE_PATH",
    }
    assert absolute["error_code"] == "INVALID_RESOURCE_PATH"
    assert "must start with 'references/', 'assets/', or 'scripts/'" in absolute["error"]
    assert climbing["error_code"] == "INVALID_RESOURCE_PATH"
    assert fatal["error_code"] == "RESOURCE_NOT_FOUND_FATAL"
    assert "failure #2" in fatal["error"]


def script(file_path: str, **extra: Any) -> Any:
    return function_call(
        "run_skill_script", {"skill_name": "weather-report", "file_path": file_path, **extra}
    )


async def test_run_skill_script_runs_python_in_the_sandbox_with_its_arguments(
    toolset: SkillToolset,
) -> None:
    events, _ = await run_calls(
        toolset,
        script("scripts/report.py", args={"city": "Oslo"}, short_options={"u": "C"}),
        script("report.py", args=["--city", "Rome", "a", "b"]),
        script("scripts/report.py", args={"city": "Bergen"}, positional_args=["x"]),
    )
    first, second, third = responses(events)
    assert first == {
        "skill_name": "weather-report",
        "file_path": "scripts/report.py",
        "stdout": "Oslo C []: sunny. Short sentences.\n",
        "stderr": "",
        "status": "success",
    }
    assert second["stdout"] == "Rome None ['a', 'b']: sunny. Short sentences.\n"
    assert third["stdout"] == "Bergen None ['x']: sunny. Short sentences.\n"


async def test_failing_scripts_report_their_error(toolset: SkillToolset) -> None:
    events, _ = await run_calls(
        toolset, script("scripts/fail.py"), script("scripts/crash.py"), script("scripts/warn.py")
    )
    fail, crash, warn = responses(events)
    assert fail["status"] == "error"
    assert fail["stdout"] == "partial\n" and "bad input" in fail["stderr"]
    assert crash["status"] == "error" and "ZeroDivisionError" in crash["stderr"]
    # The sandbox drops stderr of a run that exits 0: a warning is not a failure.
    assert warn == {**warn, "status": "success", "stdout": "ok\n"}


async def test_a_script_past_script_timeout_is_stopped(skills_root: Path) -> None:
    folder = write_skill(skills_root, "slow", files={"scripts/spin.py": "while True:\n    pass\n"})
    toolset = SkillToolset(
        [load_skill_from_dir(folder)], code_executor=SandboxedCodeExecutor(), script_timeout=1
    )
    events, _ = await run_calls(
        toolset,
        function_call("run_skill_script", {"skill_name": "slow", "file_path": "scripts/spin.py"}),
    )
    result = responses(events)[0]
    assert result["status"] == "error"
    assert "timed out after 1 seconds" in result["stderr"]


async def test_script_lookup_errors(toolset: SkillToolset) -> None:
    events, _ = await run_calls(
        toolset,
        script("scripts/nope.py"),
        script("scripts/../../etc/passwd"),
        script("scripts/notes.txt"),
        script("scripts/hello.sh"),
        script("scripts/report.py", args="--city Oslo"),
        script("scripts/missing.py"),
    )
    missing, traversal, unsupported, shell, bad_args, fatal = responses(events)
    assert missing == {
        "error": "Script 'scripts/nope.py' not found in skill 'weather-report'.",
        "error_code": "SCRIPT_NOT_FOUND",
    }
    assert traversal["error_code"] == "INVALID_RESOURCE_PATH"
    assert unsupported == {
        "error": "Unsupported script type '.txt'. Supported types: .py, .sh, .bash",
        "error_code": "UNSUPPORTED_SCRIPT_TYPE",
    }
    assert shell["error_code"] == "EXECUTION_ERROR"
    assert "SandboxedCodeExecutor refuses" in shell["error"]
    assert bad_args["error_code"] == "INVALID_ARGUMENTS"
    assert "'args' must be an object or a list of strings, got str." in bad_args["error"]
    assert fatal["error_code"] == "SCRIPT_NOT_FOUND_FATAL"


async def test_shell_scripts_run_with_an_executor_that_allows_processes(
    toolset: SkillToolset,
) -> None:
    from pyadk.code_executors import UnsafeLocalCodeExecutor

    shell_toolset = SkillToolset(toolset.skills, code_executor=UnsafeLocalCodeExecutor())
    events, _ = await run_calls(
        shell_toolset,
        script("scripts/hello.sh", positional_args=["world"]),
        function_call(
            "run_skill_script",
            {"skill_name": "weather-report", "file_path": "scripts/hello.sh", "args": ["you"]},
        ),
    )
    first, second = responses(events)
    # positional_args come after a "--", as in google-adk: $1 is "--".
    assert first["stdout"] == "hello --\n" and first["status"] == "success"
    assert second["stdout"] == "hello you\n"


async def test_without_an_executor_run_skill_script_is_not_offered(
    toolset: SkillToolset,
) -> None:
    plain = SkillToolset(toolset.skills)
    _, model = await run_calls(plain)
    assert model.requests[0].declared_function_names() == [
        "list_skills",
        "load_skill",
        "load_skill_resource",
    ]
    instruction = model.requests[0].config.system_instruction
    assert "`run_skill_script` runs" not in instruction
    assert "you cannot run them here" in instruction

    # The agent's own code executor is used when the toolset has none.
    events, model = await run_calls(
        plain,
        script("scripts/report.py", args={"city": "Lima"}),
        code_executor=SandboxedCodeExecutor(),
    )
    assert "run_skill_script" in model.requests[0].declared_function_names()
    assert responses(events)[0]["stdout"].startswith("Lima ")


async def test_the_request_carries_the_skill_guidance(toolset: SkillToolset) -> None:
    _, model = await run_calls(toolset, instruction="Be helpful.")
    request = model.requests[0]
    assert request.declared_function_names() == [
        "list_skills",
        "load_skill",
        "load_skill_resource",
        "run_skill_script",
    ]
    instruction = request.config.system_instruction
    assert instruction.startswith("Be helpful.")
    assert instruction.endswith(DEFAULT_SKILL_SYSTEM_INSTRUCTION)
    assert instruction.count("You have 'skills'") == 1
    assert "<available_skills>" not in instruction  # LAZY: the model calls list_skills


async def test_eager_discovery_puts_the_catalog_in_the_instruction(
    toolset: SkillToolset,
) -> None:
    eager = SkillToolset(
        toolset.skills,
        code_executor=SandboxedCodeExecutor(),
        discovery_mode=SkillDiscoveryMode.EAGER,
    )
    _, model = await run_calls(eager)
    request = model.requests[0]
    assert "list_skills" not in request.declared_function_names()
    instruction = request.config.system_instruction
    assert "<name>\nweather-report\n</name>" in instruction
    assert "NOT available" in instruction and "`list_skills`" in instruction


async def test_prefix_and_filter_rename_and_narrow_the_tools(toolset: SkillToolset) -> None:
    prefixed = SkillToolset(
        toolset.skills,
        code_executor=SandboxedCodeExecutor(),
        tool_name_prefix="sk",
        tool_filter=["load_skill", "load_skill_resource", "list_skills"],
    )
    events, model = await run_calls(
        prefixed, function_call("sk_load_skill", {"skill_name": "greeting"})
    )
    assert model.requests[0].declared_function_names() == [
        "sk_list_skills",
        "sk_load_skill",
        "sk_load_skill_resource",
    ]
    instruction = model.requests[0].config.system_instruction
    assert "call `sk_load_skill`" in instruction
    assert "NOT available, do not call them: `sk_run_skill_script`" in instruction
    assert responses(events)[0]["skill_name"] == "greeting"


async def test_loading_a_skill_offers_its_additional_tools(skills_root: Path) -> None:
    folder = write_skill(
        skills_root,
        "forecast",
        header="name: forecast\ndescription: x\nmetadata:\n  adk_additional_tools: [forecast]\n",
    )

    def forecast(city: str) -> dict:
        """Tomorrow's weather."""
        return {"city": city, "sky": "clear"}

    toolset = SkillToolset([load_skill_from_dir(folder)], additional_tools=[forecast])
    events, model = await run_calls(
        toolset,
        function_call("load_skill", {"skill_name": "forecast"}),
        function_call("forecast", {"city": "Oslo"}),
    )
    assert "forecast" not in model.requests[0].declared_function_names()
    assert "forecast" in model.requests[1].declared_function_names()
    assert responses(events)[1] == {"city": "Oslo", "sky": "clear"}

    # As in google-adk, the prefix and the filter apply to these tools too.
    prefixed = SkillToolset(
        toolset.skills,
        additional_tools=[forecast],
        tool_name_prefix="wx",
        tool_filter=["load_skill", "forecast"],
    )
    events, model = await run_calls(
        prefixed,
        function_call("wx_load_skill", {"skill_name": "forecast"}),
        function_call("wx_forecast", {"city": "Rome"}),
    )
    assert model.requests[1].declared_function_names() == ["wx_load_skill", "wx_forecast"]
    assert responses(events)[1] == {"city": "Rome", "sky": "clear"}


async def test_inject_state_fills_placeholders_on_load(skills_root: Path) -> None:
    folder = write_skill(
        skills_root,
        "greet",
        header="name: greet\ndescription: x\nmetadata:\n  adk_inject_state: true\n",
        body="Greet {user_name} in {language?}.",
    )
    model = ScriptedModel([function_call("load_skill", {"skill_name": "greet"}), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[SkillToolset([load_skill_from_dir(folder)])])
    events = await TestRunner(agent, state={"user_name": "Ada"}).run("hi")
    assert responses(events)[0]["instructions"] == "Greet Ada in ."


def test_clone_with_updated_skills_keeps_the_configuration(toolset: SkillToolset) -> None:
    clone = toolset.clone_with_updated_skills(toolset.skills[:1])
    assert [s.name for s in clone.skills] == ["greeting"]
    assert clone._code_executor is toolset._code_executor
    assert clone._script_timeout == toolset._script_timeout


def test_unsupported_options_and_duplicates_are_refused(toolset: SkillToolset) -> None:
    with pytest.raises(ValueError, match="Duplicate skill name 'weather-report'"):
        SkillToolset([toolset.skills[1], toolset.skills[1]])
    for option in ("environment", "skills_folder", "lifecycle_config"):
        with pytest.raises(NotImplementedError, match=f"{option}=..."):
            SkillToolset(**{option: object()})
    with pytest.raises(ValueError, match="needs code_executor=SandboxedCodeExecutor"):
        SkillToolset(save_output_artifacts=True)


async def test_files_a_script_writes_can_be_saved_as_artifacts(skills_root: Path) -> None:
    folder = write_skill(
        skills_root,
        "exporter",
        files={
            "assets/template.txt": "Total: {}",
            "scripts/export.py": (
                "import os\n"
                "os.makedirs('out', exist_ok=True)\n"
                "t = open('assets/template.txt').read()\n"
                "open('out/report.txt', 'w').write(t.format(42))\n"
                "print('written')\n"
            ),
        },
    )
    toolset = SkillToolset(
        [load_skill_from_dir(folder)],
        code_executor=SandboxedCodeExecutor(),
        save_output_artifacts=True,
    )
    model = ScriptedModel(
        [
            function_call(
                "run_skill_script", {"skill_name": "exporter", "file_path": "scripts/export.py"}
            ),
            "done",
        ]
    )
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[toolset]))
    result = responses(await runner.run("export"))[0]
    assert result["stdout"] == "written\n" and result["status"] == "success"
    # Only what the script wrote, not the skill's own files.
    assert result["saved_artifacts"] == ["out/report.txt"]
    artifact = await runner.artifact_service.load_artifact(
        app_name=runner.app_name,
        user_id=runner.user_id,
        session_id=runner.session_id,
        filename="out/report.txt",
    )
    assert artifact.inline_data.data == b"Total: 42"
