"""Google Cloud Storage loaders: not built in pyadk; they raise and say what to do."""

from __future__ import annotations

from typing import Any, NoReturn


def _not_built(function: str) -> NoReturn:
    raise NotImplementedError(
        f"pyadk does not implement {function}: loading skills from Google Cloud Storage "
        "needs google-cloud-storage and GCP credentials, which pyadk does not use. Copy "
        "the skill folders to a local directory (e.g. `gcloud storage cp -r "
        "gs://BUCKET/skills ./skills`) and use load_skill_from_dir / load_skills_from_dir."
    )


def load_skill_from_gcs_dir(*args: Any, **kwargs: Any) -> NoReturn:
    """Not built: raises NotImplementedError (see the message)."""
    _not_built("load_skill_from_gcs_dir")


def list_skills_in_gcs_dir(*args: Any, **kwargs: Any) -> NoReturn:
    """Not built: raises NotImplementedError (see the message)."""
    _not_built("list_skills_in_gcs_dir")


async def load_skill_from_gcs_dir_async(*args: Any, **kwargs: Any) -> NoReturn:
    """Not built: raises NotImplementedError (see the message)."""
    _not_built("load_skill_from_gcs_dir_async")


async def list_skills_in_gcs_dir_async(*args: Any, **kwargs: Any) -> NoReturn:
    """Not built: raises NotImplementedError (see the message)."""
    _not_built("list_skills_in_gcs_dir_async")
