"""Real projects to run Foehn on: pure-Python source packages from the package registry, each
with its own test suite, pinned by the sha256 of its sdist.

    prepared = fresh_workspace("toolz", parent)   # a new folder with the project's source
    prepared.command                              # its tests, in its own venv
    prepared.environment()                        # os.environ with that venv activated
    prepared.break_it()                           # the deliberate bug: a test now fails

The sdists are fetched once (with pip, the ordinary client) into the user cache, outside the
repository, and checked against their sha256; each project's venv (its pinned test
dependencies, made from the interpreter running this) is made once there and reused. A
workspace is a fresh copy of the unpacked source each time, so a caller may change it freely.
The project itself is not installed: its tests import it from the workspace, so an edit there is
what the tests see.

Interface (other benchmarks build on it; keep it stable): ``PROJECTS``, ``project(name)``,
``fresh_workspace(name, parent) -> Prepared`` with ``root``, ``venv``, ``command``,
``environment()``, ``break_it()``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import platformdirs

PYTEST = ("pytest==8.3.4", "pluggy==1.5.0", "iniconfig==2.0.0", "packaging==24.2")
"""The test dependencies every project's venv gets, exactly (installed without their deps)."""
PIP_SECONDS = 600.0


@dataclass(frozen=True, kw_only=True)
class Mutation:
    """A deliberate bug: ``old`` (found exactly once in ``path``) becomes ``new``."""

    path: str
    old: str
    new: str
    breaks: str
    """The test it makes fail (checked by ``bench_runners``)."""


@dataclass(frozen=True, kw_only=True)
class Project:
    name: str
    version: str
    sdist: str
    """The sdist's file name, as pip saves it."""
    sha256: str
    size: str
    """tiny, small, medium or large (lines of Python, tests included)."""
    requirement: str
    """What ``pip download`` fetches."""
    mutation: Mutation
    test_requirements: tuple[str, ...] = PYTEST

    @property
    def folder(self) -> str:
        """The folder the sdist unpacks to."""
        return self.sdist.removesuffix(".tar.gz")


PROJECTS: tuple[Project, ...] = (
    Project(
        name="inflection",
        version="0.5.1",
        sdist="inflection-0.5.1.tar.gz",
        sha256="1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
        size="tiny (1,100 lines, 455 tests)",
        requirement="inflection==0.5.1",
        mutation=Mutation(
            path="inflection/__init__.py",
            old="if number % 100 in (11, 12, 13):",
            new="if number % 100 in (11, 12):",
            breaks="test_ordinal",
        ),
    ),
    Project(
        name="toolz",
        version="1.0.0",
        sdist="toolz-1.0.0.tar.gz",
        sha256="2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02",
        size="small (8,300 lines, 180 tests)",
        requirement="toolz==1.0.0",
        mutation=Mutation(
            path="toolz/itertoolz.py",
            old="    return itertools.islice(seq, n)\n",
            new="    return itertools.islice(seq, n + 1)\n",
            breaks="test_take",
        ),
    ),
    Project(
        name="more-itertools",
        version="10.8.0",
        sdist="more_itertools-10.8.0.tar.gz",
        sha256="f638ddf8a1a0d134181275fb5d58b086ead7c6a72429ad725c67503f13ba30bd",
        size="medium (15,000 lines, 696 tests)",
        requirement="more-itertools==10.8.0",
        mutation=Mutation(
            path="more_itertools/more.py",
            old="    for item in iterable:\n        return item\n    if default is _marker:",
            new="    for item in iterable:\n        return default\n    if default is _marker:",
            breaks="FirstTests",
        ),
    ),
    Project(
        name="boltons",
        version="25.0.0",
        sdist="boltons-25.0.0.tar.gz",
        sha256="e110fbdc30b7b9868cb604e3f71d4722dd8f4dcb4a5ddd06028ba8f1ab0b5ace",
        size="large (23,000 lines, 423 tests)",
        requirement="boltons==25.0.0",
        mutation=Mutation(
            path="boltons/strutils.py",
            old="(margin + line if key(line) else line)",
            new="(margin + line if key(line) else margin)",
            breaks="test_indent",
        ),
    ),
)


def project(name: str) -> Project:
    for candidate in PROJECTS:
        if candidate.name == name:
            return candidate
    known = ", ".join(p.name for p in PROJECTS)
    raise KeyError(f"no project {name!r} in the manifest; known: {known}")


def cache() -> Path:
    """Where the sdists, their unpacked sources and the venvs are kept."""
    return Path(platformdirs.user_cache_dir("foehn")) / "bench-projects"


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """A fresh workspace of one project, and how its tests run."""

    project: Project
    root: Path
    venv: Path
    command: tuple[str, ...]
    """The project's tests in its venv, run from ``root``: ``VENV/bin/python -m pytest -q``."""

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: this process's environment) with the venv activated, as the
        person's shell has it after ``source VENV/bin/activate``."""
        env = dict(os.environ if base is None else base)
        env["VIRTUAL_ENV"] = str(self.venv)
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env.pop("PYTHONHOME", None)
        return env

    def break_it(self) -> None:
        """Apply the project's deliberate bug to the workspace."""
        mutation = self.project.mutation
        path = self.root / mutation.path
        text = path.read_text("utf-8")
        if text.count(mutation.old) != 1:
            raise RuntimeError(f"{mutation.path}: the mutation's text is not there exactly once")
        path.write_text(text.replace(mutation.old, mutation.new), "utf-8")


def fresh_workspace(name: str, parent: Path) -> Prepared:
    """A new folder under ``parent`` holding the named project's source (fetched and checked
    the first time), and its venv (made the first time)."""
    chosen = project(name)
    source = _unpacked(chosen)
    root = Path(tempfile.mkdtemp(prefix=f"{chosen.name}-", dir=parent))
    shutil.copytree(source, root, dirs_exist_ok=True, symlinks=True)
    venv = _venv(chosen)
    python = venv / "bin" / "python"
    return Prepared(
        project=chosen,
        root=root,
        venv=venv,
        command=(str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"),
    )


def _sdist(chosen: Project) -> Path:
    """The checked sdist in the cache, fetched with ``pip download`` if missing."""
    folder = cache() / "sdists"
    path = folder / chosen.sdist
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as scratch:
            _pip(
                sys.executable,
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--dest",
                scratch,
                chosen.requirement,
            )
            fetched = Path(scratch) / chosen.sdist
            if not fetched.is_file():
                raise RuntimeError(f"pip download {chosen.requirement} saved no {chosen.sdist}")
            _check(fetched, chosen)
            os.replace(fetched, path)
    _check(path, chosen)
    return path


def _check(path: Path, chosen: Project) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != chosen.sha256:
        raise RuntimeError(
            f"{path.name}: sha256 {digest}, expected {chosen.sha256}; the file was not used"
        )


def _unpacked(chosen: Project) -> Path:
    """The sdist unpacked once in the cache (read-only use: workspaces are copies)."""
    target = cache() / "sources" / chosen.folder
    if target.is_dir():
        return target
    sdist = _sdist(chosen)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        with tarfile.open(sdist) as archive:
            archive.extractall(scratch, filter="data")
        os.replace(Path(scratch) / chosen.folder, target)
    return target


def _venv(chosen: Project) -> Path:
    """The project's venv, named by what it holds; made once."""
    key = hashlib.sha256(
        "\n".join([sys.version, sys.base_prefix, *chosen.test_requirements]).encode()
    ).hexdigest()[:12]
    venv = cache() / "venvs" / f"{chosen.name}-{key}"
    if (venv / "pyvenv.cfg").is_file() and (venv / ".complete").is_file():
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=PIP_SECONDS)
    python = str(venv / "bin" / "python")
    _pip(python, "install", "--no-deps", *chosen.test_requirements)
    (venv / ".complete").write_text("\n".join(chosen.test_requirements) + "\n")
    return venv


def _pip(python: str, *args: str) -> None:
    done = subprocess.run(
        [python, "-m", "pip", "--quiet", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=PIP_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args)} failed:\n{done.stderr[-2000:]}")


if __name__ == "__main__":
    # Fetch and check every project, make every venv, and run each suite once, as it is and
    # with its bug: the manifest's own check.
    with tempfile.TemporaryDirectory() as parent:
        for each in PROJECTS:
            prepared = fresh_workspace(each.name, Path(parent))
            for label in ("as published", "with its bug"):
                if label == "with its bug":
                    prepared.break_it()
                run = subprocess.run(
                    prepared.command,
                    cwd=prepared.root,
                    env=prepared.environment(),
                    capture_output=True,
                    text=True,
                    check=False,
                )
                last = (run.stdout.strip().splitlines() or ["no output"])[-1]
                print(f"{each.name} {each.version} {label}: exit {run.returncode}: {last}")


@contextlib.contextmanager
def activated(venv: Path) -> Iterator[None]:
    """``venv`` activated in this process's own environment while the block runs, as the
    person's shell has it while Foehn runs (``run_tests`` reads ``VIRTUAL_ENV`` and ``PATH``)."""
    saved = {name: os.environ.get(name) for name in ("VIRTUAL_ENV", "PATH")}
    os.environ["VIRTUAL_ENV"] = str(venv)
    os.environ["PATH"] = f"{venv / 'bin'}{os.pathsep}{saved['PATH'] or ''}"
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
