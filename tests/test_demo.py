"""The README's demo: a calculator agent that really calls its tools."""

import subprocess
import sys

from pyadk import demo


async def test_demo_conversation(capsys):
    await demo.main(["What is 6 * 7?", "And 2.5 + 3?", "Hello!"])
    out = capsys.readouterr().out
    assert "[calculator] calls multiply({'a': 6.0, 'b': 7.0})" in out
    assert "[calculator] The answer is 42." in out
    assert "[calculator] The answer is 5.5." in out
    assert "I can add or multiply" in out
    assert "'calculations': 2" in out


def test_demo_runs_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "pyadk.demo", "What is 3 + 4?"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "The answer is 7." in result.stdout
