"""The server a platform ``.vsix`` carries: Foehn's wheel and its dependencies' wheels for one
VS Code target, for every Python the extension may meet there, plus pip itself (so a Python
without ``ensurepip`` can still be given an environment) and the pinned offline-model list.

    python scripts/bundle.py --target linux-x64 --out bundled

pip's ``--platform`` and ``--python-version`` choose which wheels are downloaded but not which
dependencies apply: environment markers (``sys_platform == 'linux'``) are evaluated for the
machine pip runs on. So the dependencies are walked here, with the markers evaluated for the
target and each Python, and only the wheels that walk reaches are downloaded (``--no-deps``,
``--only-binary=:all:``). Versions are the ones pip resolves for this machine's Python, where
they apply; a dependency only another platform or Python needs gets the newest version its
requirement allows. A Python for which some dependency has no wheel is left out of the bundle
and named on stderr; the manifest lists the Pythons the bundle serves.

``bundled/manifest.json`` (read by the extension's ``python/bundle.ts``)::

    {"foehn": "0.1.0", "target": "linux-x64", "pythons": ["3.11", ...], "key": "0.1.0-1a2b3c4d",
     "pip": "pip-26.3-py3-none-any.whl", "wheels": [...], "offlineModel": "offline-model.txt"}

``key`` names the managed environment: it changes whenever any bundled wheel does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
PIP = "pip==26.3"
"""The pip that makes the managed environment (run from its wheel: ``python pip.whl/pip``)."""


@dataclass(frozen=True, kw_only=True)
class Target:
    """A VS Code target as pip and environment markers see it."""

    platforms: tuple[str, ...]
    """Wheel platform tags the target runs, most specific first."""
    markers: dict[str, str]
    """Environment-marker values of the target (the Python's are added per version)."""


def _manylinux(arch: str, glibc_minor: int) -> tuple[str, ...]:
    """Every manylinux tag a glibc 2.``glibc_minor`` machine runs (VS Code needs 2.28)."""
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    tags: list[str] = []
    for minor in range(glibc_minor, 4, -1):
        tags.append(f"manylinux_2_{minor}_{arch}")
        if minor in legacy:
            tags.append(f"{legacy[minor]}_{arch}")
    return tuple(tags)


def _posix(system: str, machine: str) -> dict[str, str]:
    return {
        "sys_platform": system.lower(),
        "platform_system": system,
        "os_name": "posix",
        "platform_machine": machine,
    }


def _windows(machine: str) -> dict[str, str]:
    return {
        "sys_platform": "win32",
        "platform_system": "Windows",
        "os_name": "nt",
        "platform_machine": machine,
    }


TARGETS = {
    "linux-x64": Target(platforms=_manylinux("x86_64", 28), markers=_posix("Linux", "x86_64")),
    "linux-arm64": Target(platforms=_manylinux("aarch64", 28), markers=_posix("Linux", "aarch64")),
    "darwin-x64": Target(
        platforms=tuple(mac_platforms((11, 0), "x86_64")), markers=_posix("Darwin", "x86_64")
    ),
    "darwin-arm64": Target(
        platforms=tuple(mac_platforms((11, 0), "arm64")), markers=_posix("Darwin", "arm64")
    ),
    "win32-x64": Target(platforms=("win_amd64",), markers=_windows("AMD64")),
}


def _pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def build_foehn(into: Path) -> Path:
    """Foehn's own wheel, built from the repository."""
    _pip("wheel", "--no-deps", "--quiet", "--wheel-dir", str(into), str(REPO))
    return next(into.glob("foehn_lsp-*.whl"))


def host_pins(wheel: Path) -> dict[str, str]:
    """The versions pip resolves for ``wheel`` on this machine's Python, by canonical name."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        _pip(
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--only-binary=:all:",
            "--report",
            str(report),
            str(wheel),
        )
        installed = json.loads(report.read_text())["install"]
    return {
        canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
        for item in installed
    }


def _metadata(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(name).decode("utf-8")
    return [Requirement(line) for line in Parser().parsestr(text).get_all("Requires-Dist") or []]


def _tags(target: Target, python: str) -> list[Tag]:
    major, minor = (int(part) for part in python.split("."))
    abi = f"cp{major}{minor}"
    return [
        *cpython_tags((major, minor), [abi, "abi3", "none"], target.platforms),
        *compatible_tags((major, minor), abi, target.platforms),
    ]


def _wheel_for(folder: Path, name: str, tags: Sequence[Tag]) -> Path | None:
    """The best wheel of ``name`` in ``folder`` for ``tags`` (highest version, then tag rank)."""
    rank = {tag: index for index, tag in enumerate(tags)}
    best: tuple[Version, int, Path] | None = None
    for path in folder.glob("*.whl"):
        wheel_name, version, _, wheel_tags = parse_wheel_filename(path.name)
        if wheel_name != name:
            continue
        fits = [rank[t] for t in wheel_tags if t in rank]
        if fits and (best is None or (version, -min(fits)) > (best[0], -best[1])):
            best = (version, min(fits), path)
    return best[2] if best else None


def _choices(name: str, requirement: Requirement, pins: dict[str, str]) -> list[str]:
    """What to download for ``requirement``: this machine's version where it applies, then the
    newest the requirement allows."""
    pinned = name in pins and requirement.specifier.contains(pins[name], prereleases=True)
    return [*([f"{name}=={pins[name]}"] if pinned else []), f"{name}{requirement.specifier}"]


def _download(specs: list[str], target: Target, python: str, wheels: Path) -> None:
    """Downloads the wheels of ``specs`` for ``target`` and ``python`` (not their
    dependencies)."""
    major, minor = python.split(".")
    _pip(
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        f"{major}{minor}",
        *(arg for abi in (f"cp{major}{minor}", "abi3", "none") for arg in ("--abi", abi)),
        *(arg for platform in target.platforms for arg in ("--platform", platform)),
        "--dest",
        str(wheels),
        *specs,
    )


def walk(
    foehn: Path, target: Target, python: str, pins: dict[str, str], wheels: Path
) -> list[Path]:
    """Downloads into ``wheels`` what ``foehn`` needs on ``target`` with ``python``; the wheels
    it needs. Raises CalledProcessError when a dependency has no wheel for them."""
    tags = _tags(target, python)
    environment = {
        **target.markers,
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    needed: dict[str, Path] = {canonicalize_name("foehn-lsp"): foehn}
    walked: dict[str, set[str]] = {canonicalize_name("foehn-lsp"): {""}}
    """The extras (and "" for the plain requirements) whose requirements were followed."""
    pending = [(req, "") for req in _metadata(foehn)]
    while pending:
        wanted: dict[str, tuple[Requirement, set[str]]] = {}
        for requirement, extra in pending:
            if requirement.marker and not requirement.marker.evaluate(
                {**environment, "extra": extra}
            ):
                continue
            entry = wanted.setdefault(canonicalize_name(requirement.name), (requirement, set()))
            entry[1].update(requirement.extras)
        pending = []
        choices = {
            name: _choices(name, requirement, pins)
            for name, (requirement, _) in wanted.items()
            if name not in needed
        }
        try:
            if choices:
                _download([first for first, *_ in choices.values()], target, python, wheels)
        except subprocess.CalledProcessError:
            # One at a time: a target with no wheel of this machine's version (cryptography
            # dropped Intel macs) gets the newest version that has one.
            for specs in choices.values():
                for index, spec in enumerate(specs):
                    try:
                        _download([spec], target, python, wheels)
                        break
                    except subprocess.CalledProcessError:
                        if index == len(specs) - 1:
                            raise
        for name, (_, extras) in wanted.items():
            new = ({""} | extras) - walked.setdefault(name, set())
            if not new:
                continue
            path = needed.get(name) or _wheel_for(wheels, name, tags)
            if path is None:
                raise SystemExit(f"bundle: pip downloaded no wheel of {name} for {python}")
            needed[name] = path
            walked[name] |= new
            pending.extend((requirement, extra) for requirement in _metadata(path) for extra in new)
    return sorted(needed.values())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bundle(target_name: str, out: Path, pythons: Iterable[str]) -> dict[str, object]:
    """Fills ``out`` (emptied first) and returns the manifest written there."""
    target = TARGETS[target_name]
    if out.exists():
        shutil.rmtree(out)
    wheels = out / "wheels"
    wheels.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        foehn = shutil.copy(build_foehn(Path(scratch)), wheels)
    foehn_path = Path(foehn)
    pins = host_pins(foehn_path)
    served: list[str] = []
    used: set[Path] = set()
    for python in pythons:
        try:
            used.update(walk(foehn_path, target, python, pins, wheels))
        except subprocess.CalledProcessError:
            print(f"bundle: Python {python} left out: a dependency has no wheel", file=sys.stderr)
            continue
        served.append(python)
    if not served:
        raise SystemExit(f"bundle: no Python can be served on {target_name}")
    for path in wheels.glob("*.whl"):
        if path not in used:
            path.unlink()
    _pip("download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(out), PIP)
    pip_wheel = next(out.glob("pip-*.whl"))
    shutil.copy(REPO / "requirements" / "local.txt", out / "offline-model.txt")
    names = sorted(path.name for path in used)
    digest = hashlib.sha256(
        "".join(f"{name} {_sha256(wheels / name)}\n" for name in names).encode()
    ).hexdigest()
    version = parse_wheel_filename(foehn_path.name)[1]
    manifest: dict[str, object] = {
        "foehn": str(version),
        "target": target_name,
        "pythons": served,
        "key": f"{version}-{digest[:8]}",
        "pip": pip_wheel.name,
        "wheels": names,
        "offlineModel": "offline-model.txt",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True, choices=sorted(TARGETS))
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--python", action="append", choices=PYTHONS, help="default: all")
    args = parser.parse_args(argv)
    manifest = bundle(args.target, args.out, args.python or PYTHONS)
    print(json.dumps({k: manifest[k] for k in ("foehn", "target", "pythons", "key")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
