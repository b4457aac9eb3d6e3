"""``--dist loadgroup`` by node id: pytest-xdist's own grouping sets each test's
``_nodeid``, which pytest 9 no longer reads, so its ``xdist_group`` marks group nothing."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling


class _ByPrefix(LoadScopeScheduling):
    """LoadScope with one work unit per group and one per test outside every group; the
    largest units are handed out first."""

    def __init__(self, config: pytest.Config, log: Producer, groups: Mapping[str, str]) -> None:
        super().__init__(config, log)
        self._groups = groups

    def _split_scope(self, nodeid: str) -> str:
        group = group_of(nodeid, self._groups)
        return nodeid if group is None else "@" + group


def group_of(nodeid: str, groups: Mapping[str, str]) -> str | None:
    """The group of the test ``nodeid``: the value of the key of ``groups`` it starts with."""
    for prefix, group in groups.items():
        if nodeid == prefix or nodeid.startswith((prefix + "::", prefix + "[")):
            return group
    return None


class GroupScheduling:
    """A plugin: with ``--dist loadgroup``, the tests whose node id starts with a key of
    ``groups`` run on one worker per group."""

    def __init__(self, groups: Mapping[str, str]) -> None:
        self._groups = groups

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(
        self, config: pytest.Config, log: Producer
    ) -> LoadScopeScheduling | None:
        if config.getvalue("dist") != "loadgroup":
            return None
        return _ByPrefix(config, log, self._groups)
