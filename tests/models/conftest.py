"""Assertion rewriting for the conformance suite, so its failures show the values."""

import pytest

pytest.register_assert_rewrite("pyadk.testing.model_conformance")
