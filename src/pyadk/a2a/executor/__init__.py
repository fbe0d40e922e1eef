"""The A2A server side: run a pyadk agent for each A2A request."""
