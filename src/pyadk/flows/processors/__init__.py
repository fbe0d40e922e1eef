"""One module per request/response processor."""

from pyadk.flows.processors.base import BaseLlmRequestProcessor, BaseLlmResponseProcessor

__all__ = ["BaseLlmRequestProcessor", "BaseLlmResponseProcessor"]
