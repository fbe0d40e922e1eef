"""Converters between pyadk content/events and A2A parts, messages and task updates."""
