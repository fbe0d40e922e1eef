"""Plots per-turn cost vs session length (scenario a, reused session) for both frameworks.

    python benchmarks/plot.py benchmarks/results/<date>.json docs/performance-session-length.png

Needs matplotlib (``benchmarks/run.py`` installs it in ``benchmarks/.venv-adk``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

COLORS = {"pyadk": "#1a7f37", "google-adk": "#4285f4"}


def plot(results: dict, out: Path) -> None:
    by_side = results["results"].get("a_reused", {})
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    for side, entry in by_side.items():
        series = entry.get("series", {}).get("earlier_turns_vs_us_per_turn")
        if not series:
            continue
        xs = [p[0] for p in series]
        ys = [p[1] / 1000 for p in series]  # ms
        slope = entry["metrics"].get("us_per_earlier_turn", {}).get("median")
        label = f"{side} {entry.get('version', '')}".strip()
        if slope is not None:
            label += f" ({slope:+.3g} µs per earlier turn)"
        for ax in axes:
            ax.plot(xs, ys, marker="o", color=COLORS.get(side), label=label)
    axes[0].set_title("Per-turn cost vs session length")
    axes[1].set_title("Same, log scale")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("earlier turns in the session")
        ax.set_ylabel("ms per turn (median)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(
        f"One LlmAgent turn, instant fake model, in-memory sessions ({results['date'][:10]}, "
        f"{results['machine'].get('cores')} cores)",
        fontsize=9,
    )
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: plot.py RESULTS.json OUT.png")
    plot(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]))
