"""analyze_numbers: descriptive statistics of a list of numbers."""

from __future__ import annotations

import statistics
from typing import Any

OUTLIER_Z = 3.5
"""Modified z-score above which a value is an outlier (Iglewicz and Hoaglin)."""


def analyze_numbers(numbers: list[float]) -> dict[str, Any]:
    """Computes descriptive statistics of numbers: count, sum, mean, median, min, max,
    sample standard deviation, and outliers (values far from the median, by the
    modified z-score of the median absolute deviation).

    Args:
      numbers: the numbers to analyse.
    """
    if not numbers:
        return {"error": "No numbers to analyse: give at least one number."}
    values = [float(n) for n in numbers]
    return {
        "count": len(values),
        "sum": _round(sum(values)),
        "mean": _round(statistics.fmean(values)),
        "median": _round(statistics.median(values)),
        "min": _round(min(values)),
        "max": _round(max(values)),
        "stdev": _round(statistics.stdev(values)) if len(values) > 1 else 0,
        "outliers": [_round(v) for v in outliers(values)],
    }


def outliers(values: list[float]) -> list[float]:
    """Values whose modified z-score is above OUTLIER_Z."""
    median = statistics.median(values)
    deviations = [abs(v - median) for v in values]
    scale = statistics.median(deviations) / 0.6745  # MAD, as a standard deviation
    if scale == 0:  # most values are equal: use the mean absolute deviation instead
        scale = statistics.fmean(deviations) * 1.253314
    if scale == 0:
        return []
    return [v for v, d in zip(values, deviations, strict=True) if d / scale > OUTLIER_Z]


def _round(value: float) -> float | int:
    rounded = round(value, 3)
    return int(rounded) if rounded.is_integer() else rounded
