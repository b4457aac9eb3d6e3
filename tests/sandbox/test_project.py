"""Which environment and runner a project uses (``foehn_lsp.sandbox.project``): the documented
order on real folders, with programs found on a real folder of executables."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from foehn_lsp.sandbox.project import NoRunner, ProjectRunner, find_runner, python_environment

TOOLS = ("uv", "poetry", "hatch", "pdm", "tox", "npm", "pnpm", "yarn", "cargo", "go", "make")


def make_venv(folder: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return folder


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    """A folder holding an executable for every runner's tool."""
    folder = tmp_path / "tools"
    folder.mkdir()
    for name in TOOLS:
        program = folder / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    return folder


def finder(folder: Path | None) -> Callable[[str], str | None]:
    def which(name: str) -> str | None:
        return None if folder is None else shutil.which(name, path=str(folder))

    return which


def runner(root: Path, tools: Path | None, environ: dict[str, str] | None = None) -> ProjectRunner:
    found = find_runner(root, which=finder(tools), environ=environ or {})
    assert isinstance(found, ProjectRunner), found
    return found


def test_the_configured_command_comes_first(root: Path, tools: Path, tmp_path: Path) -> None:
    make_venv(root / ".venv")
    (root / "uv.lock").write_text("")
    (root / "pyproject.toml").write_text('[tool.foehn]\ntest-command = ["nox", "-s", "t"]\n')
    activated = make_venv(tmp_path / "active")
    chosen = runner(root, tools, {"VIRTUAL_ENV": str(activated)})
    assert chosen.argv == ("nox", "-s", "t")
    assert chosen.why == "[tool.foehn] test-command in pyproject.toml"


def test_an_activated_environment_comes_before_the_workspace_venv(
    root: Path, tools: Path, tmp_path: Path
) -> None:
    make_venv(root / ".venv")
    activated = make_venv(tmp_path / "elsewhere" / "env")
    chosen = runner(root, tools, {"VIRTUAL_ENV": str(activated)})
    assert chosen.argv == (str(activated / "bin" / "python"), "-m", "pytest")
    assert chosen.why == "the activated virtual environment, VIRTUAL_ENV"
    assert chosen.environment is not None
    assert chosen.environment.prefix == activated


def test_an_activated_environment_the_sandbox_does_not_show_is_passed_over(
    root: Path, tools: Path, tmp_path: Path
) -> None:
    make_venv(root / ".venv")
    activated = make_venv(tmp_path / "hidden")
    found = find_runner(
        root,
        which=finder(tools),
        environ={"VIRTUAL_ENV": str(activated)},
        shows=lambda path: path != activated,
    )
    assert isinstance(found, ProjectRunner)
    assert found.why == "the workspace's .venv"


def test_a_conda_environment_counts_as_activated(root: Path, tools: Path, tmp_path: Path) -> None:
    conda = make_venv(tmp_path / "conda")
    chosen = runner(root, tools, {"CONDA_PREFIX": str(conda)})
    assert chosen.why == "the activated conda environment, CONDA_PREFIX"


def test_the_workspace_venv_comes_before_the_project_tools(root: Path, tools: Path) -> None:
    make_venv(root / "venv")
    (root / "poetry.lock").write_text("")
    chosen = runner(root, tools)
    assert chosen.argv == (str(root / "venv" / "bin" / "python"), "-m", "pytest")
    assert chosen.why == "the workspace's venv"


@pytest.mark.parametrize(
    ("files", "argv", "why", "pytest_arguments"),
    [
        ({"uv.lock": ""}, ["uv", "run", "python", "-m", "pytest"], "uv.lock", True),
        (
            {"pyproject.toml": "[tool.poetry]\nname = 'x'\n"},
            ["poetry", "run", "python", "-m", "pytest"],
            "[tool.poetry] in pyproject.toml",
            True,
        ),
        ({"hatch.toml": ""}, ["hatch", "test", "--"], "hatch.toml", True),
        ({"pdm.lock": ""}, ["pdm", "run", "python", "-m", "pytest"], "pdm.lock", True),
        ({"tox.ini": "[tox]\n"}, ["tox"], "tox.ini", False),
        (
            {"package.json": json.dumps({"scripts": {"test": "node t.js"}})},
            ["npm", "test"],
            "package.json's test script",
            False,
        ),
        (
            {"package.json": json.dumps({"scripts": {"test": "x"}}), "pnpm-lock.yaml": ""},
            ["pnpm", "test"],
            "package.json's test script",
            False,
        ),
        (
            {"package.json": json.dumps({"scripts": {"test": "x"}}), "yarn.lock": ""},
            ["yarn", "test"],
            "package.json's test script",
            False,
        ),
        ({"Cargo.toml": "[package]\n"}, ["cargo", "test"], "Cargo.toml", False),
        ({"go.mod": "module x\n"}, ["go", "test", "./..."], "go.mod", False),
        ({"Makefile": "test:\n\ttrue\n"}, ["make", "test"], "the test target of Makefile", False),
    ],
)
def test_each_kind_of_project_by_its_files(
    root: Path,
    tools: Path,
    files: dict[str, str],
    argv: list[str],
    why: str,
    pytest_arguments: bool,
) -> None:
    for name, text in files.items():
        (root / name).write_text(text)
    chosen = runner(root, tools)
    assert chosen.argv == (str(tools / argv[0]), *argv[1:])
    assert chosen.why == why
    assert chosen.pytest is pytest_arguments


def test_a_tool_that_is_not_installed_is_passed_over_and_named(root: Path, tools: Path) -> None:
    (root / "uv.lock").write_text("")
    (root / "Cargo.toml").write_text("[package]\n")
    (tools / "uv").unlink()
    assert runner(root, tools).argv == (str(tools / "cargo"), "test")
    (tools / "cargo").unlink()
    found = find_runner(root, which=finder(tools), environ={})
    assert isinstance(found, NoRunner)
    assert "uv.lock asks for uv, which is not on PATH" in found.message
    assert "Cargo.toml asks for cargo, which is not on PATH" in found.message
    assert "[tool.foehn] test-command" in found.message
    assert "\n" not in found.message


def test_a_python_project_without_an_environment_is_never_run_with_foehns_interpreter(
    root: Path,
) -> None:
    (root / "test_x.py").write_text("def test_x():\n    pass\n")
    found = find_runner(root, which=finder(None), environ={})
    assert isinstance(found, NoRunner)
    assert "this Python project has no environment Foehn can find" in found.message
    assert "python -m venv .venv" in found.message
    assert sys.executable not in found.message


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"pyproject.toml": "[tool.foehn]\ntest-command = 'pytest'\n"}, "must be a list"),
        ({"pyproject.toml": "[tool.foehn\n"}, "pyproject.toml cannot be read"),
    ],
)
def test_a_broken_configuration_says_what_to_fix(
    root: Path, tools: Path, files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (root / name).write_text(text)
    found = find_runner(root, which=finder(tools), environ={})
    assert isinstance(found, NoRunner)
    assert message in found.message


@pytest.mark.parametrize(
    "package",
    [
        {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}},
        {"scripts": {}},
        ["not", "an", "object"],
    ],
)
def test_a_package_json_without_a_real_test_script_is_no_runner(
    root: Path, tools: Path, package: object
) -> None:
    (root / "package.json").write_text(json.dumps(package))
    assert isinstance(find_runner(root, which=finder(tools), environ={}), NoRunner)


def test_a_symlinked_venv_is_not_the_workspace_s(root: Path, tmp_path: Path) -> None:
    elsewhere = make_venv(tmp_path / "other")
    (root / ".venv").symlink_to(elsewhere)
    assert python_environment(root, {}) is None
