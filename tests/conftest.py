import pytest


@pytest.fixture
def password():
    return "a-long-enough-Passw0rd"
