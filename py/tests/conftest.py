"""Shared fixtures of the package's tests: the repository's fixtures, the real CLI binary, and a
generated corpus (docs/testing.md says how the tier runs)."""

import os
import pathlib
import subprocess

import pytest

from corpus import write_corpus

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


@pytest.fixture(scope="session")
def cli():
    """Runs the real summary-memory-cli (SM_CLI, as scripts/test.sh builds it) and returns the
    finished process."""
    binary = os.environ.get("SM_CLI")
    assert binary and os.access(binary, os.X_OK), (
        "SM_CLI must name the built summary-memory-cli (scripts/test.sh sets it)"
    )

    def run(*args):
        return subprocess.run([binary, *map(str, args)], capture_output=True, text=True)

    return run


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus"), 24)
