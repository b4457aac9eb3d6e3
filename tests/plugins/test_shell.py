"""run_command, git and run_tests: real processes in real workspaces."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Denied
from foehn_lsp.sandbox.toolchains import TOOLCHAIN_VARIABLES
from foehn_lsp.tools import Invocation, ToolRegistry
from foehn_lsp.tools.registry import Handler
from pytest_venv import pytest_venv


@pytest.fixture(autouse=True)
def no_activated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests here choose the project's environment themselves: none is activated."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)


def running(token: str) -> list[int]:
    """Processes (not zombies) whose command line contains ``token``. Programs run in their own
    pid namespace, so the pids they print mean nothing out here: they are found by a token."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            zombie = "State:\tZ" in (entry / "status").read_text()
        except OSError:
            continue
        if token in cmdline and not zombie and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def alive(token: str) -> bool:
    """Whether a process with ``token`` still runs, allowing a moment for a kill to land."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not running(token):
            return False
        time.sleep(0.02)
    return True


async def call(registry: ToolRegistry, ctx: ToolContext, tool: str, **arguments: object):  # type: ignore[no-untyped-def]
    return await registry.call(tool, arguments, ctx, steps=steps())


async def test_a_module_of_the_workspaces_src_folder_not_found_is_told_where_it_is_found(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: ta-no-station): ``python -m weatherlog.cli 20`` in a project whose package
    is in ``src/`` and not installed, and the answer that it must be installed first."""
    package = root / "src" / "weatherlog"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "cli.py").write_text("import sys\nprint('home:', sys.argv[1])\n")
    command = [sys.executable, "-m", "weatherlog.cli", "20"]
    failed = await call(registry, ctx, "run_command", command=command)
    assert not failed.ok
    assert failed.output.endswith(
        "weatherlog is the workspace's own, in src/, and this Python has not installed it. "
        'python -m and -c find it when they run in that folder: the same command with cwd "src".'
    )
    bare = await call(registry, ctx, "run_command", command=[sys.executable, "-m", "weatherlog"])
    assert "No module named weatherlog\n" in bare.output  # -m names it without quotes
    assert bare.output.endswith('the same command with cwd "src".')
    ran = await call(registry, ctx, "run_command", command=command, cwd="src")
    assert ran.ok
    assert ran.output.endswith("home: 20")
    other = await call(registry, ctx, "run_command", command=[sys.executable, "-m", "absent"])
    assert "the workspace's own" not in other.output


async def test_a_module_in_another_top_folder_is_told_where_it_is_found_unless_ignored(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "python").mkdir()
    (root / "python" / "ledger.py").write_text("print('ledger')\n")
    (root / "build").mkdir()
    (root / "build" / "stale.py").write_text("")
    (root / ".gitignore").write_text("build/\n")
    command = [sys.executable, "-m", "ledger"]
    failed = await call(registry, ctx, "run_command", command=command)
    assert failed.output.endswith('the same command with cwd "python".')
    built = await call(registry, ctx, "run_command", command=[sys.executable, "-m", "stale"])
    assert "the workspace's own" not in built.output


async def test_a_command_runs_and_reports_exit_code_and_output(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "run_command", command=["echo", "hello world"])
    assert result.ok
    assert result.output.startswith("$ echo 'hello world'\n(in .; exit 0; ")
    assert result.output.endswith("hello world")
    failed = await call(
        registry,
        ctx,
        "run_command",
        command=[sys.executable, "-c", "import sys; print('bad'); sys.exit(3)"],
    )
    assert not failed.ok
    assert "exit 3" in failed.output
    assert "bad" in failed.output


async def test_an_option_and_its_value_in_one_item_are_shown_split_when_the_command_fails(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: nf-tz-partition-all): ``["python", "-m pytest", "-- tests/…"]`` failed with
    "No module named  pytest", three times over. A command that succeeds is left as it is."""
    failed = await call(
        registry, ctx, "run_command", command=[sys.executable, "-m json.tool", "-- a.json"]
    )
    assert not failed.ok
    assert failed.output.endswith(
        "'-m json.tool', '-- a.json': each item of command is one argument, so this passed an "
        "option and its value as one. As separate items: "
        f'["{sys.executable}", "-m", "json.tool", "--", "a.json"]'
    )
    passed = await call(registry, ctx, "run_command", command=["echo", "-n hello"])
    assert passed.ok
    assert "each item" not in passed.output
    plain = await call(registry, ctx, "run_command", command=[sys.executable, "-c", "exit(2)"])
    assert "each item" not in plain.output
    valued = await call(
        registry, ctx, "run_command", command=[sys.executable, "--check-hash-based-pycs=a b"]
    )
    assert not valued.ok
    assert "each item" not in valued.output  # an option=value whose value has a space


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"command": "ls -la"}, "not a shell string; Foehn never runs a shell"),
        ({"command": []}, "arguments/command"),
        (
            {"command": ["no-such-program-xyz"]},
            "program 'no-such-program-xyz' was not found on PATH",
        ),
        ({"command": ["/nonexistent/tool"]}, "'/nonexistent/tool' is not an executable file"),
        ({"command": ["./missing.sh"]}, "is not an executable file in the workspace"),
        ({"command": ["ls"], "cwd": "../"}, "escapes the workspace"),
        ({"command": ["ls"], "cwd": "missing"}, "is not a folder"),
        ({"command": ["ls"], "timeout_s": 10_000}, "arguments/timeout_s"),
    ],
)
async def test_bad_commands_get_clear_results(
    root: Path, ctx: ToolContext, registry: ToolRegistry, arguments: dict[str, object], message: str
) -> None:
    result = await registry.call("run_command", arguments, ctx, steps=steps())
    assert not result.ok
    assert message in result.output


async def test_stdout_and_stderr_interleave_and_stdin_is_closed(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    code = (
        "import sys; print('out1', flush=True); print('err', file=sys.stderr, flush=True);"
        "print('out2', flush=True); print(repr(sys.stdin.read()))"
    )
    result = await call(registry, ctx, "run_command", command=[sys.executable, "-c", code])
    assert result.output.splitlines()[-4:] == ["out1", "err", "out2", "''"]


async def test_a_timeout_kills_the_whole_process_group(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    code = (
        "import subprocess, time; p = subprocess.Popen(['sleep', '301.25']);"
        "print(p.pid, flush=True); time.sleep(300)"
    )
    result = await call(
        registry, ctx, "run_command", command=[sys.executable, "-c", code], timeout_s=1
    )
    assert not result.ok
    assert "stopped: it did not finish within 1 s" in result.output
    assert not alive("301.25")


async def test_no_background_process_outlives_its_call(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    code = "import subprocess; p = subprocess.Popen(['sleep', '302.25']); print(p.pid)"
    result = await call(registry, ctx, "run_command", command=[sys.executable, "-c", code])
    assert result.ok
    assert not alive("302.25")


async def test_huge_and_binary_output_is_capped(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    big = await call(
        registry,
        ctx,
        "run_command",
        command=[sys.executable, "-c", "import sys; [print('line', i) for i in range(500000)]"],
    )
    assert "bytes of output not shown" in big.output
    assert "line 0" in big.output
    assert "line 499999" in big.output
    assert len(big.output) < 40_000
    endless = await call(registry, ctx, "run_command", command=["yes"], timeout_s=60)
    assert "stopped: it printed more than 64 MB" in endless.output
    binary = await call(
        registry,
        ctx,
        "run_command",
        command=[
            sys.executable,
            "-c",
            "import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)",
        ],
    )
    assert "(binary output, 1,024 bytes, not shown)" in binary.output


async def test_the_environment_is_an_allowlist(
    root: Path, ctx: ToolContext, registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "OPENAI_API_KEY",
        "FOEHN_API_KEY",
        "GITHUB_TOKEN",
        "PGPASSWORD",
        "DATABASE_URL",
        "MYSQL_PWD",
        "npm_config__authToken",
        "SSH_AUTH_SOCK",
        "HARMLESS_SETTING",
    ):
        monkeypatch.setenv(name, f"value-of-{name}")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    result = await call(
        registry,
        ctx,
        "run_command",
        command=[sys.executable, "-c", "import os; print(sorted(os.environ.items()))"],
    )
    assert result.ok, result.output
    assert "value-of" not in result.output
    assert "('LC_ALL', 'C.UTF-8')" in result.output
    assert "('TMPDIR', '/tmp')" in result.output
    names = set(re.findall(r"\('(\w+)',", result.output))
    allowed = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TERM", "TZ", "PWD", "USER"}
    allowed.add("PYTHONDONTWRITEBYTECODE")  # 1 unless the person sets it: no stale bytecode
    assert names <= allowed | set(TOOLCHAIN_VARIABLES)  # the folders the view binds


async def test_cancelling_kills_the_group_at_once(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    marker = root / "pid"
    code = f"import os, time; open({str(marker)!r}, 'w').write('303.25'); time.sleep(303.25)"
    task = asyncio.create_task(
        call(registry, ctx, "run_command", command=[sys.executable, "-c", code])
    )
    for _ in range(1000):
        if marker.exists() and marker.read_text():
            break
        assert not task.done(), task.result()
        await asyncio.sleep(0.02)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 5
    assert not alive("303.25")


@pytest.fixture
def repo(root: Path) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.invalid")
    git("config", "user.name", "Test")
    (root / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("commit", "-q", "-m", "first")
    (root / "a.txt").write_text("two\n")
    return root


async def test_git_reads(repo: Path, ctx: ToolContext, registry: ToolRegistry) -> None:
    status = await call(registry, ctx, "git", args=["status", "--short"])
    assert status.ok
    assert "M a.txt" in status.output
    diff = await call(registry, ctx, "git", args=["diff"])
    assert "+two" in diff.output
    log = await call(registry, ctx, "git", args=["log", "--oneline", "-n", "1"])
    assert "first" in log.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["commit", "-m", "x"], "git commit was not run: it writes the repository"),
        (["push"], "git push was not run: it writes the repository"),
        (["-c", "core.pager=touch pwned", "log"], "git '-c' is not allowed here"),
        (["diff", "--output=out.txt"], "option '--output=out.txt' is not allowed for git diff"),
        (["log", "--ext-diff"], "option '--ext-diff' is not allowed for git log"),
        (["branch", "-D", "main"], "option '-D' is not allowed for git branch"),
        (["diff", "--", "../outside"], "escapes the workspace"),
        (["show", "HEAD:../../etc/passwd"], "escapes the workspace"),
    ],
)
async def test_git_refuses_writes_and_dangerous_options(
    repo: Path, ctx: ToolContext, registry: ToolRegistry, args: list[str], message: str
) -> None:
    result = await call(registry, ctx, "git", args=args)
    assert not result.ok
    assert message in result.output
    assert not (repo / "out.txt").exists()


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("git", {"args": ["tag", "v1.4.0"]}),
        ("run_command", {"command": ["git", "tag", "v1.4.0"]}),
        ("run_command", {"command": ["git", "commit", "-am", "Bump the version"]}),
    ],
)
async def test_a_git_write_is_refused_with_what_to_do_instead(
    repo: Path, ctx: ToolContext, registry: ToolRegistry, tool: str, arguments: dict[str, Any]
) -> None:
    """Seen: asked to bump a version, the embedded model tried git tag and git init, and was
    told "invalid arguments". The refusal now says what to do instead, in one line."""
    before = _tree(repo / ".git")
    result = await registry.call(tool, arguments, ctx, steps=steps())
    assert not result.ok
    assert "invalid arguments" not in result.output
    assert "\n" not in result.output
    assert result.output.endswith(
        "Commits, tags and pushes are the person's to make: say in your answer what they should "
        "run. A version number is text in files: search for it, read_file and edit_file each "
        "file that states it."
    )
    assert _tree(repo / ".git") == before


@pytest.fixture
def hostile_repo(repo: Path) -> Path:
    """A repository whose own config would run a command on status and on paging."""
    pwned = repo.parent / "pwned"
    for key, value in (
        ("core.fsmonitor", f"touch {pwned}; false"),
        ("core.pager", f"touch {pwned}; cat"),
    ):
        subprocess.run(["git", "config", key, value], cwd=repo, check=True)
    return repo


async def test_git_ignores_a_hostile_repository_config(
    hostile_repo: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "git", args=["status"])
    assert result.ok, result.output
    await call(registry, ctx, "git", args=["log"])
    assert not (hostile_repo.parent / "pwned").exists()


async def test_run_tests_runs_pytest_and_keeps_the_summary(
    root: Path, with_venv: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "test_sample.py").write_text(
        "def test_passes():\n    assert True\n\ndef test_fails():\n    assert 1 == 2\n"
    )
    everything = await call(registry, ctx, "run_tests")
    assert not everything.ok
    assert "1 failed, 1 passed" in everything.output
    chosen = await call(registry, ctx, "run_tests", paths=["test_sample.py"], keyword="passes")
    assert chosen.ok, chosen.output
    assert "1 passed, 1 deselected" in chosen.output
    outside = await call(registry, ctx, "run_tests", paths=["../elsewhere"])
    assert "escapes the workspace" in outside.output


async def test_run_tests_says_when_the_keyword_selects_nothing(
    root: Path, with_venv: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "test_sample.py").write_text("def test_passes():\n    assert True\n")
    none = await call(registry, ctx, "run_tests", keyword="no_such_name")
    assert not none.ok
    assert "-k 'no_such_name' selected no test: no test name matches it" in none.output


async def test_run_tests_advises_only_what_it_accepts(
    root: Path, tmp_path: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """run_tests has no sandbox argument: a test command the sandbox cannot see is explained
    without advising one."""
    hidden = tmp_path / "elsewhere" / "runner"
    hidden.parent.mkdir()
    hidden.write_text("#!/bin/sh\necho ran\n")
    hidden.chmod(0o755)
    (root / "pyproject.toml").write_text(f'[tool.foehn]\ntest-command = ["{hidden}"]\n')
    result = await call(registry, ctx, "run_tests")
    assert not result.ok
    assert "is not visible inside the workspace-write sandbox" in result.output
    assert "[sandbox] readable" in result.output
    assert "sandbox=" not in result.output


async def test_run_tests_uses_the_configured_command(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "pyproject.toml").write_text(
        f'[tool.foehn]\ntest-command = ["{sys.executable}", "-c", "print(\'custom runner\')"]\n'
    )
    result = await call(registry, ctx, "run_tests")
    assert result.ok
    assert "custom runner" in result.output


class Recorder:
    """An approver that says no and keeps what it was shown."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return Denied(reason="recorded")


async def test_run_tests_shows_the_exact_command_and_its_sandbox(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "pyproject.toml").write_text(
        '[tool.foehn]\ntest-command = ["sh", "-c", "touch pwned", "--"]\n'
    )
    (root / "tests").mkdir()  # a path that is not there runs nothing, and nobody is asked
    person = Recorder()
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    await registry.call(
        "run_tests", {"paths": ["tests"], "keyword": "fast"}, ctx, steps=(*steps(), gate)
    )
    (request,) = person.asked
    assert request.sandbox == "workspace-write"
    assert request.program is not None
    assert request.program.endswith("/sh -c 'touch pwned' -- -k fast -- tests")
    assert not (root / "pwned").exists()


async def test_run_tests_paths_are_never_options(
    root: Path, with_venv: Path, ctx: ToolContext, registry: ToolRegistry, canary: Path
) -> None:
    (root / "test_ok.py").write_text("def test_ok():\n    pass\n")
    (root / f"--basetemp={canary}").mkdir(parents=True)  # there, so the run goes ahead
    result = await call(registry, ctx, "run_tests", paths=[f"--basetemp={canary}"])
    assert "-m pytest -- --basetemp=" in result.output.splitlines()[0]
    assert (canary / "secret.txt").exists()
    dashed = await call(registry, ctx, "run_tests", keyword="--basetemp=/x")
    assert "may not start with '-'" in dashed.output


async def test_run_tests_refuses_a_command_that_changed_after_it_was_shown(
    root: Path, with_venv: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "test_ok.py").write_text("def test_ok():\n    pass\n")

    async def swap(invocation: Invocation, next_step: Handler) -> ToolResult:
        (root / "pyproject.toml").write_text('[tool.foehn]\ntest-command = ["sh", "-c", "x"]\n')
        return await next_step(invocation)

    result = await registry.call("run_tests", {}, ctx, steps=(*steps(), swap))
    assert not result.ok
    assert "the test command changed since it was shown" in result.output


@pytest.fixture
def with_venv(root: Path) -> Path:
    """The workspace's own .venv, with pytest."""
    return pytest_venv(root / ".venv")


@pytest.fixture
def project_with_venv(root: Path) -> Path:
    """A small real project with its own virtual environment (which sees Foehn's pytest
    through a .pth file, so no package is downloaded)."""
    (root / "src" / "calc").mkdir(parents=True)
    (root / "src" / "calc" / "__init__.py").write_text(
        "def add(a: int, b: int) -> int:\n    return a + b\n"
    )
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'src'))\n"
    )
    (root / "tests" / "test_calc.py").write_text(
        "import os\nfrom calc import add\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n"
        "def test_tmp_path_is_writable(tmp_path):\n"
        "    (tmp_path / 'f').write_text('x')\n    assert (tmp_path / 'f').read_text() == 'x'\n\n"
        "def test_the_venv_is_active():\n    assert os.environ['VIRTUAL_ENV'].endswith('.venv')\n"
    )
    pytest_venv(root / ".venv")
    return root


async def test_a_real_project_passes_its_tests_in_the_sandbox(
    project_with_venv: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "run_tests")
    assert result.ok, result.output
    assert "3 passed" in result.output
    assert "sandbox workspace-write" in result.output
    assert ".venv/bin/python -m pytest" in result.output.splitlines()[0]
    assert (project_with_venv / ".pytest_cache").is_dir()  # the workspace was writable


@pytest.fixture
def filtered_repo(repo: Path) -> Path:
    """A repository whose attributes route every file through a filter, a textconv and an
    external diff, each of which would print its name into git's output. (The driver's name
    has capitals: a subsection's case matters to git.)"""
    (repo / ".gitattributes").write_text("*.txt filter=Evil diff=Evil\n")
    for key, value in (
        ("filter.Evil.clean", "echo FILTER-RAN >&2; cat"),
        ("filter.Evil.smudge", "echo FILTER-RAN >&2; cat"),
        ("filter.Evil.required", "true"),
        ("diff.Evil.textconv", "echo TEXTCONV-RAN; cat"),
        ("diff.external", "echo EXTERNAL-RAN"),
    ):
        subprocess.run(["git", "config", key, value], cwd=repo, check=True)
    os.utime(repo / "a.txt", (0, 0))  # an old stamp makes status run the clean filter
    return repo


def test_the_filtered_repository_really_runs_its_programs(filtered_repo: Path) -> None:
    """The control for the test below: plain git runs them."""
    diff = subprocess.run(["git", "diff"], cwd=filtered_repo, capture_output=True, text=True)
    assert "EXTERNAL-RAN" in diff.stdout
    textconv = subprocess.run(
        ["git", "diff", "--no-ext-diff"], cwd=filtered_repo, capture_output=True, text=True
    )
    assert "TEXTCONV-RAN" in textconv.stdout
    assert "FILTER-RAN" in textconv.stderr


async def test_git_runs_no_filter_textconv_or_external_diff(
    filtered_repo: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    for args in (["status"], ["diff"], ["log", "-p"], ["show", "HEAD"], ["blame", "a.txt"]):
        result = await call(registry, ctx, "git", args=args)
        assert result.ok, result.output
        assert "sandbox read-only" in result.output
        for mark in ("FILTER-RAN", "TEXTCONV-RAN", "EXTERNAL-RAN"):
            assert mark not in result.output, (args, result.output)
    diff = await call(registry, ctx, "git", args=["diff"])
    assert "+two" in diff.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["branch", "-vD", "main"], "option '-vD' is not allowed for git branch"),
        (["branch", "-Dv", "main"], "option '-Dv' is not allowed for git branch"),
        (["log", "-pO", "x"], "option '-pO' is not allowed for git log"),
        (["diff", "-Mx"], "option '-Mx' is not allowed for git diff"),
        (["branch", "new-branch"], "the git tool only lists branches"),
        (["log", "--out=x"], "option '--out=x' is not allowed for git log"),
        (["log", "main\x1b[2J"], "contains a control character"),
    ],
)
async def test_git_checks_bundled_options_and_branch_names(
    repo: Path, ctx: ToolContext, registry: ToolRegistry, args: list[str], message: str
) -> None:
    result = await call(registry, ctx, "git", args=args)
    assert not result.ok
    assert message in result.output


async def test_git_accepts_bundled_read_options(
    repo: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    for args in (["log", "-n1", "--oneline"], ["diff", "-M50%"], ["branch", "-vv"]):
        result = await call(registry, ctx, "git", args=args)
        assert result.ok, (args, result.output)


@pytest.fixture
def moved_worktree(repo: Path) -> Path:
    subprocess.run(["git", "config", "core.worktree", str(repo.parent)], cwd=repo, check=True)
    return repo


async def test_git_refuses_a_worktree_elsewhere(
    moved_worktree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    worktree = await call(registry, ctx, "git", args=["status"])
    assert not worktree.ok
    assert "core.worktree" in worktree.output


async def test_git_refuses_a_repository_that_points_elsewhere(
    repo: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    outside = repo.parent / "elsewhere.git"
    (repo / ".git").rename(outside)
    (repo / ".git").write_text(f"gitdir: {outside}\n")
    pointer = await call(registry, ctx, "git", args=["status"])
    assert not pointer.ok
    assert "a file pointing to a repository elsewhere" in pointer.output


async def test_git_ignores_global_config(
    repo: Path, ctx: ToolContext, registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = repo.parent / "home"
    home.mkdir()
    pwned = repo.parent / "pwned-global"
    (home / ".gitconfig").write_text(f"[core]\n\tfsmonitor = touch {pwned}\n")
    monkeypatch.setenv("HOME", str(home))
    result = await call(registry, ctx, "git", args=["status"])
    assert result.ok, result.output
    assert not pwned.exists()


async def test_a_program_hidden_by_the_sandbox_gets_a_clear_message(
    root: Path, ctx: ToolContext, registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = root.parent / "home"
    (home / "bin").mkdir(parents=True)
    tool = home / "bin" / "mine"
    tool.write_text("#!/bin/sh\necho hi\n")
    tool.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    result = await call(registry, ctx, "run_command", command=[str(tool)])
    assert not result.ok
    assert "is not visible inside the workspace-write sandbox" in result.output
    assert "[sandbox] readable" in result.output


@pytest.fixture
def signed_repo(repo: Path) -> Path:
    """HEAD is a commit with a signature, and the repository names the program that checks
    signatures (which prints its name) and asks log to check them."""

    def git(*args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=repo, check=True, capture_output=True, text=True, input=stdin
        )
        return done.stdout.strip()

    tree = git("rev-parse", "HEAD^{tree}")
    commit = (
        f"tree {tree}\nauthor a <a@example.invalid> 0 +0000\n"
        "committer a <a@example.invalid> 0 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    git("update-ref", "HEAD", git("hash-object", "-t", "commit", "-w", "--stdin", stdin=commit))
    checker = repo / "check-signature"
    checker.write_text("#!/bin/sh\necho SIGNATURE-PROGRAM-RAN >&2\nexit 1\n")
    checker.chmod(0o755)
    git("config", "gpg.program", str(checker))
    git("config", "log.showSignature", "true")
    return repo


def test_the_signed_repository_really_runs_its_program(signed_repo: Path) -> None:
    done = subprocess.run(["git", "log", "-1"], cwd=signed_repo, capture_output=True, text=True)
    assert "SIGNATURE-PROGRAM-RAN" in done.stdout + done.stderr


async def test_git_runs_no_signature_program(
    signed_repo: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    for args in (["log", "-1"], ["log", "-1", "--format=%G? %h"], ["show", "HEAD"]):
        result = await call(registry, ctx, "git", args=args)
        assert result.ok, result.output
        assert "SIGNATURE-PROGRAM-RAN" not in result.output
