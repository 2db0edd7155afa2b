"""Put a planned release on the Hugging Face Hub as one commit and tag it.

One commit makes the tagged revision hold exactly the planned files: the files
are added, and any other file left on the Hub by an earlier version is deleted
in the same commit. The commit is made on top of the `main` head read just
before (`parent_commit`), so a concurrent push makes it fail instead of mixing
two releases, and an existing tag refuses the release: a published version is
never overwritten, a correction ships under a new version.
"""
from __future__ import annotations

from dataclasses import dataclass

from .plan import KEPT_ON_HUB, Plan

REPO_TYPE = "dataset"
BRANCH = "main"


class TagExists(Exception):
    """The version was published before; publishing it again would overwrite it."""


@dataclass(frozen=True)
class Published:
    url: str
    commit: str
    tag: str

    def render(self) -> str:
        return f"published {self.url} at tag {self.tag}, revision {self.commit}"


def upload(plan: Plan, *, token: str | None = None, endpoint: str | None = None) -> Published:
    """Create the dataset repo if needed, commit exactly the planned files, tag the commit.

    `token` and `endpoint` default to huggingface_hub's own resolution
    (HF_TOKEN or the saved login; HF_ENDPOINT or the public Hub).
    """
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi

    api = HfApi(endpoint=endpoint, token=token)
    url = api.create_repo(plan.repo_id, repo_type=REPO_TYPE, exist_ok=True)
    refs = api.list_repo_refs(plan.repo_id, repo_type=REPO_TYPE)
    if plan.tag in {tag.name for tag in refs.tags}:
        raise TagExists(f"{url} already has tag {plan.tag}: publish the correction as a new version")
    parent = next((branch.target_commit for branch in refs.branches if branch.name == BRANCH), None)
    remote = api.list_repo_files(plan.repo_id, repo_type=REPO_TYPE, revision=parent) if parent else []
    operations = [CommitOperationAdd(path_in_repo=f.path,
                                     path_or_fileobj=plan.root / f.path if f.content is None else f.content)
                  for f in plan.files]
    operations += [CommitOperationDelete(path_in_repo=path) for path in sorted(remote)
                   if path not in plan.paths and path not in KEPT_ON_HUB]
    commit = api.create_commit(plan.repo_id, operations, commit_message=f"Release {plan.version}",
                               repo_type=REPO_TYPE, revision=BRANCH, parent_commit=parent)
    api.create_tag(plan.repo_id, tag=plan.tag, tag_message=f"Release {plan.version}", revision=commit.oid,
                   repo_type=REPO_TYPE)
    return Published(str(url), commit.oid, plan.tag)
