"""Fixtures for the end-to-end tests of the installed "dml" kernel."""
import os

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a long end-to-end test; bin/test runs it in CI"
                                       " (CI=true) only")

from kernel_session import running_kernel


@pytest.fixture(scope="session", autouse=True)
def runs_of_the_session(tmp_path_factory):
    """Every kernel the tests start records its jobs in a run store of the test session's,
    not in the user's (a test may still name its own)."""
    if "DML_RUNS_DIR" not in os.environ:
        os.environ["DML_RUNS_DIR"] = str(tmp_path_factory.mktemp("runs"))


@pytest.fixture
def kernel():
    with running_kernel() as (km, kc):
        yield km, kc


@pytest.fixture(scope="module")
def shared_kernel():
    """One kernel for a module whose tests do not restart or stop it."""
    with running_kernel() as (km, kc):
        yield km, kc
