"""The A2A client side: pieces of :class:`pyadk.agents.remote_a2a_agent.RemoteA2aAgent`."""
