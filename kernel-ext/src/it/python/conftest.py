"""Fixtures for the end-to-end tests of the installed "dml" kernel."""
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a long end-to-end test; bin/test runs it in CI"
                                       " (CI=true) only")

from kernel_session import running_kernel


@pytest.fixture
def kernel():
    with running_kernel() as (km, kc):
        yield km, kc


@pytest.fixture(scope="module")
def shared_kernel():
    """One kernel for a module whose tests do not restart or stop it."""
    with running_kernel() as (km, kc):
        yield km, kc
