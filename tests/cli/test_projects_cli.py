"""Real kinds of project through the real CLI and the scripted model: run_tests runs the
project's own interpreter and runner (an activated venv elsewhere, uv, Poetry, npm, cargo) as
the person's shell would; a same-second, same-size fix is seen; read-only checkers (ruff, mypy,
cargo check) succeed and leave nothing behind; a hook in the config folder denies ``rm`` with
its message, and a broken one is named. Tools that are not installed here skip with a
reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.harness import events, foehn
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.testing import ModelServer, Turn
from pytest_venv import pytest_venv

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not system_sandbox().available, reason="needs the sandbox"),
]

NO_ACTIVATED = {"VIRTUAL_ENV": "", "CONDA_PREFIX": ""}
"""Nothing activated (the test's own environment might be)."""


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def results(
    server: ModelServer,
    root: Path,
    state: Path,
    *calls: tuple[str, dict[str, Any]],
    env: dict[str, str] | None = None,
    approve: str = "all",
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    """``foehn run --json`` making ``calls``, one per step: the tool results, and the run."""
    server.script(*[Turn(tool_calls=[call]) for call in calls], Turn(text="Done."))
    done = foehn(
        "run",
        "check the project",
        "--workspace",
        str(root),
        "--approve",
        approve,
        "--json",
        server=server,
        state=state,
        env={**NO_ACTIVATED, **(env or {})},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return [e for e in events(done.stdout) if e["event"] == "tool_result"], done


def activated(venv: Path) -> dict[str, str]:
    return {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}


def files(folder: Path) -> dict[str, int]:
    """Every entry below ``folder`` (links not followed) with its size: what a call left."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            found[str(path.relative_to(folder))] = path.lstat().st_size
    return found


def test_run_tests_uses_the_activated_venv_outside_the_workspace(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    venv = pytest_venv(tmp_path / "elsewhere" / "env")
    (root / "test_prefix.py").write_text(
        "import os, sys\n\n"
        "def test_the_person_s_environment_runs_the_tests():\n"
        f"    assert os.path.realpath(sys.prefix) == {str(os.path.realpath(venv))!r}\n"
    )
    [result], _ = results(server, root, tmp_path / "state", ("run_tests", {}), env=activated(venv))
    first = result["output"].splitlines()[0]
    assert first == (
        f"$ {venv}/bin/python -m pytest  (the activated virtual environment, VIRTUAL_ENV)"
    )
    assert result["ok"], result["output"]
    assert "1 passed" in result["output"]


def test_run_tests_without_an_environment_says_what_to_do_and_runs_nothing(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    (root / "test_x.py").write_text("def test_x():\n    open('ran', 'w')\n")
    [result], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    assert not result["ok"]
    assert "this Python project has no environment Foehn can find" in result["output"]
    assert not (root / "ran").exists()


def test_a_same_second_same_size_fix_is_seen_by_the_next_run(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    pytest_venv(root / ".venv")
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "test_calc.py").write_text(
        "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    stamp = (root / "calc.py").stat().st_mtime_ns
    [broken], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    assert "1 failed" in broken["output"]
    # The fix: the same size, and (as an edit within the same second would) the same time.
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    os.utime(root / "calc.py", ns=(stamp, stamp))
    [fixed], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    assert fixed["ok"], fixed["output"]
    assert "1 passed" in fixed["output"]
    assert not list(root.rglob("*.pyc"))


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not on PATH here")
def test_run_tests_in_a_uv_project(server: ModelServer, root: Path, tmp_path: Path) -> None:
    wheels = root / "wheels"
    pinned = ["pytest==8.3.4", "pluggy==1.5.0", "iniconfig==2.0.0", "packaging==24.2"]
    fetched = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels),
         *pinned, "colorama==0.4.6"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if fetched.returncode != 0:
        pytest.skip(f"pytest's wheels could not be fetched here: {fetched.stderr[-300:]}")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        'dependencies = []\n\n[dependency-groups]\ndev = ["pytest==8.3.4"]\n\n'
        '[tool.uv]\npackage = false\noffline = true\nfind-links = ["wheels"]\n'
        'cache-dir = ".uv-cache"\n'
    )
    (root / "test_calc.py").write_text("def test_add():\n    assert 1 + 1 == 2\n")
    [result], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    first = result["output"].splitlines()[0]
    assert first.endswith("uv run python -m pytest  ([tool.uv] in pyproject.toml)")
    assert result["ok"], result["output"]
    assert "1 passed" in result["output"]


@pytest.mark.skipif(shutil.which("poetry") is None, reason="Poetry is not on PATH here")
def test_run_tests_in_a_poetry_project(server: ModelServer, root: Path, tmp_path: Path) -> None:
    base = subprocess.run(["python3", "-c", "import pytest"], capture_output=True, check=False)
    if base.returncode != 0:
        pytest.skip("the Python Poetry makes its environment from has no pytest here")
    (root / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "calc"\nversion = "0.1.0"\ndescription = ""\nauthors = []\n'
        'package-mode = false\n\n[tool.poetry.dependencies]\npython = ">=3.11"\n'
    )
    (root / "poetry.toml").write_text(
        "[virtualenvs]\nin-project = true\noptions.system-site-packages = true\n"
    )
    (root / "test_calc.py").write_text("def test_add():\n    assert 1 + 1 == 2\n")
    [result], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    first = result["output"].splitlines()[0]
    assert first.endswith("poetry run python -m pytest  ([tool.poetry] in pyproject.toml)")
    assert result["ok"], result["output"]
    assert "1 passed" in result["output"]


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not on PATH here")
def test_run_tests_in_an_npm_project(server: ModelServer, root: Path, tmp_path: Path) -> None:
    (root / "package.json").write_text(
        json.dumps({"name": "calc", "version": "1.0.0", "scripts": {"test": "node test.js"}})
    )
    (root / "test.js").write_text(
        'const assert = require("assert");\nassert.strictEqual(1 + 1, 2);\n'
        'console.log("1 passed");\n'
    )
    [result], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    assert result["output"].splitlines()[0].endswith("npm test  (package.json's test script)")
    assert result["ok"], result["output"]
    assert "1 passed" in result["output"]


CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
LIB = (
    "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 3), 5);\n    }\n}\n"
)


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not on PATH here")
def test_run_tests_in_a_cargo_project(server: ModelServer, root: Path, tmp_path: Path) -> None:
    (root / "Cargo.toml").write_text(CARGO)
    (root / "src").mkdir()
    (root / "src" / "lib.rs").write_text(LIB)
    [result], _ = results(server, root, tmp_path / "state", ("run_tests", {}))
    assert result["output"].splitlines()[0].endswith("cargo test  (Cargo.toml)")
    assert result["ok"], result["output"]
    assert "test result: ok. 1 passed" in result["output"]


def checkers_config(state: Path, *programs: tuple[str, list[str]]) -> None:
    """The person's rules: these programs run unasked, read-only (an allow rule's default)."""
    rules = "".join(
        f'[[rules]]\ntool = "run_command"\nprogram = "{program}"\nargs = {json.dumps(args)}\n'
        'decision = "allow"\n\n'
        for program, args in programs
    )
    (state / "config" / "foehn").mkdir(parents=True)
    (state / "config" / "foehn" / "config.toml").write_text(rules)


def test_ruff_and_mypy_run_read_only_succeed_and_leave_nothing(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    tools = Path(sys.executable).parent
    if not (tools / "ruff").exists() or not (tools / "mypy").exists():
        pytest.skip("ruff and mypy are not installed beside this Python")
    (root / "pyproject.toml").write_text("[tool.ruff]\n\n[tool.mypy]\nstrict = true\n")
    (root / "app.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    before = files(root)
    state = tmp_path / "state"
    checkers_config(state, ("mypy", ["*"]))
    found, _ = results(
        server,
        root,
        state,
        ("run_command", {"command": ["ruff", "check", "app.py"]}),
        ("run_command", {"command": ["mypy", "app.py"]}),
        env={"PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"},
        approve="never",  # nothing here may be asked: each runs unasked, read-only
    )
    ruff, mypy = found
    assert ruff["ok"], ruff["output"]
    assert "All checks passed!" in ruff["output"]
    assert "sandbox read-only" in ruff["output"]
    assert mypy["ok"], mypy["output"]
    assert "Success: no issues found in 1 source file" in mypy["output"]
    assert "sandbox read-only" in mypy["output"]
    assert files(root) == before  # no .ruff_cache, no .mypy_cache, no __pycache__


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not on PATH here")
def test_cargo_check_runs_read_only_succeeds_and_leaves_nothing(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    (root / "Cargo.toml").write_text(CARGO)
    (root / "src").mkdir()
    (root / "src" / "lib.rs").write_text(LIB)
    before = files(root)
    state = tmp_path / "state"
    checkers_config(state, ("cargo", ["check"]))
    [result], _ = results(
        server,
        root,
        state,
        ("run_command", {"command": ["cargo", "check"]}),
        approve="never",
    )
    assert result["ok"], result["output"]
    assert "sandbox read-only" in result["output"]
    assert "Finished" in result["output"]
    assert files(root) == before  # no target/, no Cargo.lock


GUARD = (
    "import json, sys\n"
    "from message import MESSAGE\n"
    "call = json.load(sys.stdin)\n"
    "if call['arguments']['command'][0] == 'rm':\n"
    "    print(json.dumps({'decision': 'deny', 'message': MESSAGE}))\n"
)


def hooks_config(state: Path, *command: str) -> Path:
    """A pre_tool hook for run_command in the person's config; its scripts in the documented
    home, ``$XDG_CONFIG_HOME/foehn/hooks/``."""
    home = state / "config" / "foehn" / "hooks"
    home.mkdir(parents=True)
    (home / "guard.py").write_text(GUARD)
    (home / "message.py").write_text('MESSAGE = "Never rm here: move it to trash/ instead."\n')
    argv = [word.replace("HOOKDIR", str(home)) for word in command]
    (state / "config" / "foehn" / "config.toml").write_text(
        f'[[hooks]]\nevent = "pre_tool"\ntools = ["run_command"]\ncommand = {json.dumps(argv)}\n'
    )
    return home


def test_a_hook_in_the_config_folder_denies_rm_with_its_message(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    hooks_config(state, "python3", "HOOKDIR/guard.py")
    (root / "keep.txt").write_text("keep\n")
    [result], _ = results(server, root, state, ("run_command", {"command": ["rm", "keep.txt"]}))
    assert not result["ok"]
    assert "Never rm here: move it to trash/ instead." in result["output"]
    assert (root / "keep.txt").read_text() == "keep\n"


def test_a_broken_hook_is_named_to_the_person_and_the_model(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    home = hooks_config(state, "python3", "HOOKDIR/gaurd.py")  # a typo: no such script
    (root / "keep.txt").write_text("keep\n")
    [result], done = results(server, root, state, ("run_command", {"command": ["rm", "keep.txt"]}))
    assert (root / "keep.txt").exists()
    assert "blocked by a hook that failed" in result["output"]
    assert "person's own rule" not in result["output"]
    config = state / "config" / "foehn" / "config.toml"
    approval = [e for e in events(done.stdout) if e["event"] == "approval"]
    assert f"the pre_tool hook {config}:1 is broken" in approval[0]["reason"]
    assert f"its script {home}/gaurd.py does not exist" in approval[0]["reason"]
    assert f"the pre_tool hook {config}:1 is broken" in done.stderr  # the person's log line


def test_ignored_files_are_left_out_of_files_changed_and_still_undone(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    """No git repository: the workspace's .gitignore and .foehnignore decide all the same."""
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / ".foehnignore").write_text("build/\n")
    state = tmp_path / "state"
    make = (
        "mkdir -p __pycache__ build && echo 1 > __pycache__/x.pyc && echo 2 > build/out "
        "&& echo 3 > kept.txt"
    )
    _, done = results(server, root, state, ("run_command", {"command": ["sh", "-c", make]}))
    [changed] = [e for e in events(done.stdout) if e["event"] == "files_changed"]
    assert [f["path"] for f in changed["files"]] == ["kept.txt"]
    assert (root / "__pycache__" / "x.pyc").exists()
    undone = foehn("undo", "--workspace", str(root), state=state, env=NO_ACTIVATED)
    assert undone.returncode == 0, undone.stderr
    assert not (root / "kept.txt").exists()
    assert not (root / "__pycache__").exists()  # checkpointed, so undone too
    assert not (root / "build").exists()
