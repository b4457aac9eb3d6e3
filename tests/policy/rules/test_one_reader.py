"""The rules and the risk table read an argv with one reader (``policy.rules.argv``), so they
cannot disagree about what it runs: whatever program the rules' view says an argv may start,
the risk of the argv is at least that program's own risk, and an argv the view cannot read is
never below destructive. Attacked with argvs built from runners, their options and the
programs they may start, spelled every way the two readers once read differently."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foehn_lsp.policy.rules.argv import view
from foehn_lsp.risk import RiskLevel
from foehn_lsp.workspace import Workspace
from foehn_plugins.command_risk import classify

RUNNERS = [
    ["env"], ["env", "A=1"], ["env", "-u", "PATH"], ["env", "-i"], ["env", "--unse", "X"],
    ["nice"], ["nice", "-n", "5"], ["nice", "-5"], ["nice", "--adj=3"],
    ["timeout", "5"], ["timeout", "-s", "KILL", "5"], ["timeout", "--sig", "KILL", "5"],
    ["time"], ["time", "-o", "out.txt"], ["time", "-fo", "x"], ["nohup"], ["stdbuf", "-o0"],
    ["ionice", "-c", "3"], ["ionice", "-p", "1"], ["setsid", "-w"], ["xargs"],
    ["xargs", "-n", "1"], ["xargs", "-I{}"], ["python3", "-m"], ["uv", "run"],
    ["uv", "run", "--with", "x"], ["npm", "exec"], ["flock", "lock"], ["command"],
]  # fmt: skip
"""Runners and their options, exact and not (abbreviated, unknown, swallowing a word)."""
PROGRAMS = [
    ["git", "push"], ["git", "status"], ["git", "-c", "core.pager=x", "log"], ["rm", "x"],
    ["ls"], ["cat", "a.txt"], ["pytest", "-q"], ["sh", "-c", "ls"], ["python3", "-c", "1"],
    ["sed", "-n", "1p", "a.txt"], ["sed", "1e ls", "a.txt"], ["find", ".", "-exec", "ls"],
    ["make", "--version"], ["tar", "--to-command=ls", "-xf", "a"], ["touch", "x"], ["pip"],
]  # fmt: skip


def _argvs() -> st.SearchStrategy[list[str]]:
    prefix = st.lists(st.sampled_from(RUNNERS), max_size=3).map(
        lambda ws: [word for words in ws for word in words]
    )
    return st.tuples(prefix, st.sampled_from(PROGRAMS)).map(lambda pair: pair[0] + pair[1])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=_argvs())
def test_an_argv_is_at_least_as_risky_as_every_program_the_rules_see_it_start(
    argv: list[str],
) -> None:
    workspace = Workspace([Path.cwd()])
    risk = classify(argv, workspace)
    seen = view(argv)
    if seen.opaque is not None or not seen.exact:
        assert risk is RiskLevel.DESTRUCTIVE, (argv, seen.opaque)
    for run in seen.runs:
        own = classify([run.program, *run.args], workspace)
        assert risk.rank >= own.rank, (argv, run.program, risk, own)


@pytest.mark.parametrize("repository", ["none", "plain", "configured"])
def test_a_wrapper_never_lowers_what_it_wraps(tmp_path: Path, repository: str) -> None:
    """In a folder that is no repository, a plain one, and one whose git may run code it
    configured (``.git`` a file pointing elsewhere, as in a worktree)."""
    if repository == "plain":
        (tmp_path / ".git").mkdir()
    elif repository == "configured":
        (tmp_path / ".git").write_text("gitdir: ../elsewhere\n")
    workspace = Workspace([tmp_path])
    for wrapper in RUNNERS:
        for program in PROGRAMS:
            wrapped = classify([*wrapper, *program], workspace)
            assert wrapped.rank >= classify(program, workspace).rank, (wrapper, program)
