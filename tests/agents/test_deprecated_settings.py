"""Settings google-adk deprecates warn where the user sets them, and still work."""

from __future__ import annotations

import warnings

import pytest

from pyadk.agents import LlmAgent, RunConfig
from pyadk.testing import ScriptedModel, TestRunner


def test_global_instruction_warns_at_the_line_that_sets_it() -> None:
    with pytest.warns(
        DeprecationWarning, match="global_instruction.*GlobalInstructionPlugin"
    ) as seen:
        LlmAgent(name="root", global_instruction="Be brief.")
    assert [w.filename for w in seen] == [__file__]


def test_save_input_blobs_as_artifacts_warns_at_the_line_that_sets_it() -> None:
    with pytest.warns(DeprecationWarning, match="SaveFilesAsArtifactsPlugin") as seen:
        RunConfig(save_input_blobs_as_artifacts=True)
    assert [w.filename for w in seen] == [__file__]


def test_unset_or_false_settings_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LlmAgent(name="root", instruction="Hi.")
        LlmAgent(name="other", global_instruction="")
        RunConfig(save_input_blobs_as_artifacts=False)
        RunConfig()


async def test_a_deprecated_global_instruction_still_reaches_the_model() -> None:
    model = ScriptedModel(["ok"])
    with pytest.warns(DeprecationWarning):
        agent = LlmAgent(name="root", model=model, global_instruction="Be brief.")
    await TestRunner(agent).run("hello")
    assert "Be brief." in (model.requests[0].config.system_instruction or "")
