"""User simulation: a simulated user plays an eval case's ``conversationScenario``
against the agent (google-adk's ``evaluation.simulation`` package).

The public names are re-exported by :mod:`pyadk.evaluation`; this package imports
nothing itself, so the scenario model can use its personas without an import cycle.
"""
