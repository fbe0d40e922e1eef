"""Optional add-ons built on pyadk's public API (not part of the core).

- :mod:`pyadk.contrib.structured_workflow`: an agent that writes pyadk agents, with a
  plan, a sandboxed run and a verification loop.
- :mod:`pyadk.contrib.bench`: a benchmarking framework for such generators
  (``python -m pyadk.contrib.bench``).
"""
