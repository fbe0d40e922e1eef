"""Names of the function calls by which an agent asks its client for something: the
calls pause the agent until the client answers them with a function response of the
same name and id (google-adk's names)."""

REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = "adk_request_confirmation"
"""Asks the client to approve (or reject) a tool call."""

REQUEST_EUC_FUNCTION_CALL_NAME = "adk_request_credential"
"""Asks the client for an end user's credential (an API key, a token, an OAuth2
consent) that a tool call needs."""

REQUEST_INPUT_FUNCTION_CALL_NAME = "adk_request_input"
"""Asks the client for input: a graph workflow node's ``RequestInput``."""

CLIENT_REQUEST_NAMES = frozenset(
    {REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, REQUEST_EUC_FUNCTION_CALL_NAME}
)
"""The requests' traffic stays between agent and client: the model never sees it."""

CHECKED_ANSWER_NAMES = CLIENT_REQUEST_NAMES | {REQUEST_INPUT_FUNCTION_CALL_NAME}
"""Answers checked against the session's requests before the user's message is stored."""
