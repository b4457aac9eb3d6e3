"""Rules as written in config.toml: malformed ones reported with file, line and key and ignored
whole (never a rule set that lets more through than written), warnings with the nearest tool
names, and saving and removing rules atomically with the rest of the file kept as it was."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from foehn_lsp import RiskLevel
from foehn_lsp.errors import ConfigError
from foehn_lsp.policy.guards import load
from foehn_lsp.policy.rules.ruleset import Rule, parse_rules
from foehn_lsp.policy.rules.store import append_rule, remove_rule

GOOD_DENY = (
    '[[rules]]\ntool = "run_command"\nprogram = "git"\nargs = ["push", "*"]\ndecision = "deny"\n'
)
GOOD_ALLOW = (
    '[[rules]]\ntool = "run_command"\nprogram = "npm"\nargs = ["test"]\ndecision = "allow"\n'
)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('tool = "run_command"\ndecision = "maybe"', "4: rules.decision: required: one of allow"),
        ('decision = "deny"', "2: rules.tool: required"),
        (
            'tool = "x"\ndecision = "deny"\nprogam = "git"',
            "5: rules.progam: unknown key; did you mean 'program'?",
        ),
        (
            'tool = "x"\nprogram = "/usr/bin/git"\ndecision = "deny"',
            "4: rules.program: a program's name",
        ),
        (
            'tool = "x"\nargs = ["push"]\ndecision = "deny"',
            "4: rules.args: an argument shape needs",
        ),
        (
            'tool = "x"\nprogram = "git"\nargs = ["*", "push"]\ndecision = "deny"',
            'only the last word may be "*"',
        ),
        (
            'tool = "x"\npaths = ["/etc/**"]\ndecision = "deny"',
            "4: rules.paths: a list of globs relative",
        ),
        (
            'tool = "x"\npaths = ["../up"]\ndecision = "deny"',
            "rules.paths: a list of globs relative",
        ),
        (
            'tool = "x"\ndecision = "deny"\nsandbox = "full"',
            "5: rules.sandbox: only an allow runs anything",
        ),
        ('tool = "x"\ndecision = "allow"\nsandbox = "wide"', "5: rules.sandbox: one of read-only"),
        ('tool = "x"\ndecision = "deny"\nmessage = 3', "5: rules.message: a string"),
    ],
)
def test_a_malformed_rule_is_reported_with_file_line_and_key(table: str, problem: str) -> None:
    text = f"model = 'm'\n[[rules]]\n{table}\n"
    rules, problems = parse_rules(text, "cfg.toml")
    assert rules == []
    assert len(problems) == 1, problems
    assert problems[0].startswith("cfg.toml:")
    assert problem in problems[0]


def test_a_file_with_a_malformed_rule_keeps_its_denials_and_withholds_its_allows(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        GOOD_DENY + "\n" + GOOD_ALLOW + '\n[[rules]]\ntool = "x"\ndecision = "nope"\n'
    )
    ruleset = load(config, None, trusted=False).rules
    assert [r.decision for r in ruleset.rules] == ["deny"]
    assert ruleset.problems[-1] == (
        f"{config}: its allow rules are not applied until the problems above are fixed "
        "(its deny and ask rules are)"
    )


def test_workspace_rules_are_not_honoured_until_approved_by_content(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".foehn").mkdir(parents=True)
    (root / ".foehn" / "rules.toml").write_text(GOOD_ALLOW)
    assert load(None, root, trusted=True).rules.rules == ()
    rules, problems = parse_rules(
        GOOD_ALLOW.replace('decision = "allow"', 'decision = "allow"\nsandbox = "full"'),
        "ws/.foehn/rules.toml",
        workspace=True,
    )
    assert rules == []
    assert 'a workspace\'s rules cannot allow "full"' in problems[0]


def test_a_rule_for_an_unknown_tool_is_warned_about_with_the_nearest_names() -> None:
    rules, _ = parse_rules(
        '[[rules]]\ntool = "run_comand"\ndecision = "deny"\n'
        '[[rules]]\ntool = "write_file"\npaths = ["docs/*"]\ndecision = "allow"\n'
        '[[rules]]\ntool = "mcp__github__*"\ndecision = "deny"\n',
        "cfg.toml",
    )
    from foehn_lsp.policy.rules.ruleset import RuleSet

    tools = {
        "run_command": RiskLevel.READ_ONLY,
        "write_file": RiskLevel.WRITE,
        "run_tests": RiskLevel.WRITE,
    }
    assert RuleSet(rules=tuple(rules)).warnings(tools) == [
        "cfg.toml:1: tool 'run_comand' is not a tool Foehn has; did you mean run_command?",
        "cfg.toml:4: this allow lets write_file write nothing unasked: "
        'add sandbox = "workspace-write" to allow its writes',
    ]


CONFIG = """\
# my settings
model = "devstral"   # the model

[approval]
write = "ask"

# never push
[[rules]]
tool = "run_command"
program = "git"
args = ["push", "*"]
decision = "deny"
# the next one is about tests

[[rules]]
tool = "run_tests"
decision = "allow"
sandbox = "workspace-write"
"""


def test_saving_a_rule_appends_one_table_and_keeps_the_rest(tmp_path: Path) -> None:
    config = tmp_path / "foehn" / "config.toml"
    config.parent.mkdir()
    config.write_text(CONFIG)
    config.chmod(0o640)
    rule = Rule(
        tool="run_command",
        program="touch",
        args=("?",),
        decision="allow",
        sandbox="workspace-write",
    )
    saved = append_rule(config, rule, note="saved from an approval")
    text = config.read_text()
    assert text.startswith(CONFIG)
    assert text[len(CONFIG) :] == (
        '\n[[rules]]  # saved from an approval\ntool = "run_command"\nprogram = "touch"\n'
        'args = ["?"]\ndecision = "allow"\nsandbox = "workspace-write"\n'
    )
    assert saved.source == f"{config}:20"
    assert config.stat().st_mode & 0o777 == 0o640
    assert [r.source for r in load(config, None, trusted=False).rules.rules][-1] == saved.source
    assert [p.name for p in config.parent.iterdir()] == ["config.toml"]


def test_a_rule_is_saved_to_a_new_file_and_never_into_a_broken_one(tmp_path: Path) -> None:
    config = tmp_path / "new" / "config.toml"
    rule = Rule(tool="run_tests", decision="allow", sandbox="workspace-write")
    append_rule(config, rule)
    assert tomllib.loads(config.read_text())["rules"] == [
        {"tool": "run_tests", "decision": "allow", "sandbox": "workspace-write"}
    ]
    config.write_text('model = "unclosed\n')
    with pytest.raises(ConfigError, match="does not parse"):
        append_rule(config, rule)
    assert config.read_text() == 'model = "unclosed\n'


def test_removing_a_rule_takes_its_table_and_leaves_comments_for_what_follows(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    removed = remove_rule(config, 1)
    assert removed == (
        '[[rules]]\ntool = "run_command"\nprogram = "git"\nargs = ["push", "*"]\n'
        'decision = "deny"\n'
    )
    assert config.read_text() == CONFIG.replace(removed, "")
    assert "# the next one is about tests" in config.read_text()
    with pytest.raises(ConfigError, match="there is no rule 2"):
        remove_rule(config, 2)
