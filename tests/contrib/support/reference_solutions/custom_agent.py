from pyadk import types
from pyadk.agents import BaseAgent
from pyadk.events import Event


class PingAgent(BaseAgent):
    async def _run_async_impl(self, ctx):
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.ModelContent("pong"),
        )


root_agent = PingAgent(name="ping")
