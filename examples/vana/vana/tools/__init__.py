"""The specialists' tools: small, deterministic and real (regexes and statistics)."""

from .code_review import review_code
from .data_analysis import analyze_numbers
from .secrets_scan import scan_for_secrets

__all__ = ["analyze_numbers", "review_code", "scan_for_secrets"]
