"""The documentation holds together: the reference pages build strictly with MkDocs (every link
and anchor between pages resolves, every page is in the navigation), and every link the README
makes into the repository points at a file that exists and a heading it has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor, as MkDocs (Python-Markdown's toc) makes it."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, re.M)}


def test_the_reference_builds_strictly(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr


def test_the_readme_links_to_pages_and_headings_that_exist() -> None:
    links = LINK.findall((ROOT / "README.md").read_text())
    local = [link for link in links if "://" not in link]
    assert local, "the README links to no page"
    for link in local:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.is_file(), f"README links to {path}, which does not exist"
        if anchor:
            assert anchor in _anchors(target), f"{path} has no heading #{anchor}"
