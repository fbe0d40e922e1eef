"""Tools the real-model tests give the embedded model (shared by both runtimes' tests)."""

from __future__ import annotations


def get_weather(city: str) -> dict:
    """Returns the current weather for a city.

    Args:
      city: the city name.
    """
    return {"city": city, "weather": "sunny", "temperature_c": 21}


def add(a: float, b: float) -> float:
    """Adds two numbers.

    Args:
      a: the first number.
      b: the second number.
    """
    return a + b
