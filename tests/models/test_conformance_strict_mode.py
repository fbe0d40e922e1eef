"""The conformance suite on a user's adapter, run by pytest in pytest-asyncio's strict mode.

Strict mode (pytest-asyncio's default) runs only async tests and fixtures that are
marked as such; the suite must run there exactly as in auto mode, and still catch a
broken adapter.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

from pyadk.testing.model_conformance import ModelConformance

USER_TESTS = textwrap.dedent(
    '''
    from pyadk.models import OpenAIChat
    from pyadk.testing import ModelConformance, OpenAIWire


    class TeamChat(OpenAIChat):
        max_retries: int | None = 0


    class UsagelessChat(TeamChat):
        """A broken adapter: it drops the usage metadata."""

        async def generate_content_async(self, llm_request, stream=False):
            async for response in super().generate_content_async(llm_request, stream):
                response.usage_metadata = None
                yield response


    class TestTeamChat(ModelConformance):
        wire = OpenAIWire()

        def make_model(self, base_url):
            return TeamChat(model="m", base_url=f"{base_url}/v1", api_key="k")


    class TestUsagelessChat(TestTeamChat):
        def make_model(self, base_url):
            return UsagelessChat(model="m", base_url=f"{base_url}/v1", api_key="k")
    '''
)


def _outcomes(report: Path) -> dict[str, dict[str, str]]:
    """class name -> test name -> passed / failed / error / skipped, from a JUnit report."""
    outcomes: dict[str, dict[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        tags = {child.tag for child in case} & {"failure", "error", "skipped"}
        outcome = tags.pop() if tags else "passed"
        cls = case.attrib["classname"].rsplit(".", 1)[-1]
        outcomes.setdefault(cls, {})[case.attrib["name"]] = outcome
    return outcomes


def test_the_suite_runs_in_strict_mode_and_catches_a_broken_adapter(tmp_path: Path) -> None:
    (tmp_path / "test_team_chat.py").write_text(USER_TESTS)
    report = tmp_path / "report.xml"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_mode=strict",
            f"--rootdir={tmp_path}",
            f"--junitxml={report}",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYADK_DEFAULT_MODEL": "none"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    (mode,) = [line for line in result.stdout.splitlines() if line.startswith("asyncio: mode=")]
    assert "strict" in mode.lower(), result.stdout
    outcomes = _outcomes(report)

    good = outcomes["TestTeamChat"]
    suite_tests = {name for name in dir(ModelConformance) if name.startswith("test_")}
    assert {name.split("[")[0] for name in good} == suite_tests
    assert set(good.values()) == {"passed"}, good  # nothing skipped: every test really ran
    assert good["test_reasoning_is_kept_and_sent_back[stream]"] == "passed"

    broken = outcomes["TestUsagelessChat"]
    assert broken.keys() == good.keys()
    failed = sorted(name for name, outcome in broken.items() if outcome != "passed")
    assert failed == [
        "test_stream_yields_text_deltas_then_one_aggregate",
        "test_text_answer_with_usage_and_system_instruction",
    ]
    assert result.returncode == 1  # pytest's "tests failed" exit code
