"""Serving a pyadk agent over A2A: the agent card builder and ``to_a2a``."""
