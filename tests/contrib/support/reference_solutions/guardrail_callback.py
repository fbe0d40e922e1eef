from pyadk import types
from pyadk.agents import CallbackContext, LlmAgent
from pyadk.models import LlmRequest, LlmResponse


def block_forbidden(callback_context: CallbackContext, llm_request: LlmRequest):
    last = llm_request.contents[-1] if llm_request.contents else None
    text = " ".join(p.text or "" for p in (last.parts or [])) if last else ""
    if "forbidden" in text.lower():
        return LlmResponse(content=types.ModelContent("Request blocked."))
    return None


root_agent = LlmAgent(
    name="guarded", instruction="Help the user.", before_model_callback=block_forbidden
)
