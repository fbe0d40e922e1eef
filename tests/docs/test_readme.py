"""The README's quickstart runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_quickstart_runs(capsys):
    text = README.read_text()
    (code,) = re.findall(r"## Quickstart\n\n```python\n(.*?)```", text, re.DOTALL)
    assert len(code.strip().splitlines()) <= 30
    exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})
    assert "[weather] Sunny, 21 °C." in capsys.readouterr().out


def test_readme_starts_with_the_two_commands():
    text = README.read_text()
    commands = re.findall(r"```bash\n(.*?)\n```", text)
    assert "python -m pyadk.demo" in commands[0]
    assert "python -m pytest" in commands[1]
