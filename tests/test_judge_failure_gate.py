"""`label`/`report`'s judge-failure gate (`--max-judge-failure-rate`)."""

from __future__ import annotations

import pytest

from halluscope.cli.main import _check_judge_failures
from halluscope.errors import ConfigError


def test_without_a_rate_only_a_total_failure_is_an_error():
    _check_judge_failures(76, 77, None)
    with pytest.raises(ConfigError, match="77 of 77 mentions .*every judgement failed"):
        _check_judge_failures(77, 77, None)


def test_a_rate_is_the_only_limit_when_given():
    _check_judge_failures(77, 77, 1.0)  # keep every counted failure, exit 0
    _check_judge_failures(1, 10, 0.1)
    with pytest.raises(ConfigError, match="2 of 10 mentions .*more than --max-judge-failure"):
        _check_judge_failures(2, 10, 0.1)
