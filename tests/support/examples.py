"""How many examples the Hypothesis tests draw. Each test is written with the number CI draws;
the profile in HYPOTHESIS_PROFILE scales it: 'quick' (the default, `make test`) draws a tenth,
'ci' (`.ci/run`) all of them. Loaded by tests/conftest.py before any test module is imported."""

import os

from hypothesis import HealthCheck, settings

# Hypothesis's own default is 100 examples: a profile's max_examples over 100 is its share. Neither
# profile fails a test because drawing its examples was slow: on a machine shared with other suites
# that says how loaded the machine is, not whether the code is right (tests/engine/test_forged_moves.py
# failed so, 5 examples in 30 s at a load average of 25).
QUIET = [HealthCheck.too_slow]
settings.register_profile("quick", max_examples=10, suppress_health_check=QUIET)
settings.register_profile("ci", max_examples=100, suppress_health_check=QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


def examples(full):
    """`full` examples under the 'ci' profile, that share of them under another (at least 10)."""
    return max(10, round(full * settings.default.max_examples / 100))
