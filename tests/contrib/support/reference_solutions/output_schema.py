from pydantic import BaseModel

from pyadk.agents import LlmAgent


class Weather(BaseModel):
    city: str
    temperature_c: float


root_agent = LlmAgent(
    name="weather", instruction="Report the weather.", output_schema=Weather, output_key="weather"
)
