"""The network a person grants: entries as written, problems named by file, line and key, a
mistake never granting more, and the check of a name's addresses (with a resolver given as the
seam it is, so a name can answer as a hostile DNS server would)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from foehn_lsp.config import load_settings
from foehn_lsp.config.headers import within
from foehn_lsp.config.network import Domain, parse_domain
from foehn_lsp.config.sandbox import user_sandbox_settings
from foehn_lsp.sandbox.network import Destination, Grant, Refused, destination, permitted


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    (folder / "foehn").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder / "foehn" / "config.toml"


def domain(text: str) -> Domain:
    parsed = parse_domain(text)
    assert isinstance(parsed, Domain), parsed
    return parsed


@pytest.mark.parametrize(
    ("entry", "host", "port", "covered"),
    [
        ("registry.example", "registry.example", 443, True),
        ("registry.example", "registry.example", 80, True),
        ("registry.example", "registry.example", 8080, False),
        ("Registry.Example.", "registry.example", 443, True),
        ("registry.example:8443", "registry.example", 8443, True),
        ("registry.example:8443", "registry.example", 443, False),
        ("*.example.org", "files.example.org", 443, True),
        ("*.example.org", "a.b.example.org", 443, True),
        ("*.example.org", "example.org", 443, False),
        ("*.example.org", "badexample.org", 443, False),
        ("*.example.org", "example.org.evil.test", 443, False),
        ("bücher.example", "xn--bcher-kva.example", 443, True),
    ],
)
def test_an_entry_covers_its_names_and_ports_only(
    entry: str, host: str, port: int, covered: bool
) -> None:
    assert domain(entry).covers(host, port) is covered


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("*", "alone would grant every name"),
        ("*.*", "alone would grant every name"),
        ("*.org", "a whole top-level domain"),
        ("10.0.0.1", "an address"),
        ("[::1]", "an address"),
        ("::1", "an address"),
        ("https://registry.example/", "not a URL"),
        ("registry.example/simple", "not a URL"),
        ("registry.example:0", "1 to 65535"),
        ("registry.example:http", "1 to 65535"),
        ("a*.example.org", "only as the first label"),
        ("-bad-.example", "not a domain name"),
        ("under_score.example", "not a domain name"),
        ("10.1", "not a domain name"),
        ("", "a domain name"),
    ],
)
def test_a_malformed_entry_says_why(entry: str, why: str) -> None:
    parsed = parse_domain(entry)
    assert isinstance(parsed, str)
    assert why in parsed


def test_malformed_entries_are_named_and_grant_nothing(config: Path) -> None:
    config.write_text(
        "[general]\nx = 1\n\n[sandbox]\nmemory_mb = 2048\nnetwork = [\n"
        '  "registry.example",\n'
        '  "*",\n'
        '  "10.0.0.1",\n'
        '  "*.example.org",\n'
        "]\n"
        'network_local = "registry.example"\n'
    )
    settings = user_sandbox_settings()
    assert [d.shown() for d in settings.network] == ["registry.example", "*.example.org"]
    assert [d.source for d in settings.network] == [f"{config}:7", f"{config}:10"]
    assert settings.network_local == ()
    assert settings.memory_mb == 2048
    assert settings.network_problems == (
        f"{config}:8: sandbox.network: '*': '*' alone would grant every name: list the "
        "domains, or approve full access; it is not granted",
        f"{config}:9: sandbox.network: '10.0.0.1': an address, not a domain name: grant the "
        "name the program asks for; it is not granted",
        f"{config}:12: sandbox.network_local: a list of domain names; nothing of it is granted",
    )
    grant = Grant(domains=settings.network)
    assert isinstance(permitted("10.0.0.1", 443, grant), Refused)
    assert isinstance(permitted("anything.test", 443, grant), Refused)


def test_the_default_is_no_network(config: Path) -> None:
    assert user_sandbox_settings().network == ()
    config.write_text("[sandbox]\nmemory_mb = 2048\n")
    assert user_sandbox_settings().network == ()


def resolving(*addresses: str):  # type: ignore[no-untyped-def]
    async def resolve(name: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


def decided(grant: Grant, *addresses: str, host: str = "registry.example") -> object:
    return asyncio.run(destination(host, 443, grant, resolving(*addresses)))


@pytest.mark.parametrize(
    ("addresses", "kind"),
    [
        (("127.0.0.1",), "a loopback address"),
        (("127.8.9.1",), "a loopback address"),
        (("::1",), "a loopback address"),
        (("::ffff:127.0.0.1",), "a loopback address"),
        (("10.1.2.3",), "a private address"),
        (("192.168.1.1",), "a private address"),
        (("172.16.0.9",), "a private address"),
        (("169.254.169.254",), "a private address"),
        (("100.64.0.1",), "a private address"),
        (("fd00::1",), "a private address"),
        (("93.184.215.14", "10.0.0.1"), "a private address"),
    ],
)
def test_a_name_that_resolves_to_a_local_address_is_refused(
    addresses: tuple[str, ...], kind: str
) -> None:
    found = decided(Grant(domains=(domain("registry.example"),)), *addresses)
    assert isinstance(found, Refused)
    assert kind in found.reason
    assert "network_local" in found.reason


def test_network_local_lets_a_granted_name_resolve_here_but_never_to_no_one() -> None:
    grant = Grant(domains=(domain("registry.example"),), local=(domain("registry.example"),))
    found = decided(grant, "127.0.0.1")
    assert isinstance(found, Destination)
    assert found.addresses == ("127.0.0.1",)
    for nobody in ("0.0.0.0", "224.0.0.1", "::"):
        refused = decided(grant, nobody)
        assert isinstance(refused, Refused)
        assert "no one's address" in refused.reason
    assert isinstance(decided(Grant(local=grant.local), "127.0.0.1"), Refused)  # local alone


def test_the_checked_addresses_are_the_ones_returned() -> None:
    grant = Grant(domains=(domain("*.example.org"),))
    found = decided(grant, "93.184.215.14", "93.184.215.14", host="files.example.org")
    assert isinstance(found, Destination)
    assert found.addresses == ("93.184.215.14",)
    assert found.host == "files.example.org"
    assert found.domain.shown() == "*.example.org"


def test_a_name_that_does_not_resolve_is_refused() -> None:
    async def fails(name: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    grant = Grant(domains=(domain("registry.example"),))
    found = asyncio.run(destination("registry.example", 443, grant, fails))
    assert isinstance(found, Refused)
    assert "does not resolve" in found.reason


def test_header_allowances_are_read_with_their_lines_and_malformed_ones_allow_nothing(
    config: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config.write_text(
        "[sandbox]\n"
        'network = ["registry.example", "*.example.org", "git.example:8443"]\n'
        "\n"
        "[sandbox.network_headers]\n"
        '"Registry.Example" = ["Authorization", "X-Token"]\n'
        '"files.example.org" = [\n'
        '  "Authorization",\n'
        '  "",\n'
        '  "Bad Header",\n'
        "]\n"
        '"git.example" = ["Authorization"]\n'
        '"evil.example" = ["Authorization"]\n'
        '"10.0.0.1" = ["Authorization"]\n'
        '"*.example.org" = "Authorization"\n'
        '"git.example:8443" = []\n'
        'registry.example = ["Cookie"]\n'
    )
    settings = user_sandbox_settings()
    assert [(a.domain.shown(), a.headers, a.domain.source) for a in settings.network_headers] == [
        ("registry.example", ("Authorization", "X-Token"), f"{config}:5"),
        ("files.example.org", ("Authorization",), f"{config}:6"),
    ]
    problems = settings.network_problems
    assert problems == (
        f"{config}:8: sandbox.network_headers.'files.example.org': '' is not a header name; "
        "it is not allowed",
        f"{config}:9: sandbox.network_headers.'files.example.org': 'Bad Header' is not a header "
        "name; it is not allowed",
        f"{config}:11: sandbox.network_headers.'git.example': git.example is not granted in "
        "sandbox.network (network_headers grants nothing by itself); no header is allowed",
        f"{config}:12: sandbox.network_headers.'evil.example': evil.example is not granted in "
        "sandbox.network (network_headers grants nothing by itself); no header is allowed",
        f"{config}:13: sandbox.network_headers.'10.0.0.1': an address, not a domain name: grant "
        "the name the program asks for; no header is allowed",
        f"{config}:14: sandbox.network_headers.'*.example.org': a list of header names; none is "
        "allowed",
        f"{config}:15: sandbox.network_headers.'git.example:8443': lists no header name; none is "
        "allowed",
        f"{config}:4: sandbox.network_headers.'registry': a list of header names (quote a "
        "domain with dots); none is allowed",
    )
    assert all(problem in caplog.text for problem in problems)
    (allowance,) = Grant(headers=settings.network_headers).allowing("registry.example", 443)
    assert allowance.allows("registry.example", 443, "x-token")
    assert not allowance.allows("registry.example", 8080, "Authorization")
    assert not allowance.allows("registry.example", 443, "Cookie")
    assert Grant(headers=settings.network_headers).allowing("a.registry.example", 443) == ()


def test_header_allowances_that_are_not_a_table_allow_nothing(config: Path) -> None:
    config.write_text(
        '[sandbox]\nnetwork = ["registry.example"]\nnetwork_headers = ["Authorization"]\n'
    )
    settings = user_sandbox_settings()
    assert settings.network_headers == ()
    assert settings.network_problems == (
        f"{config}:3: sandbox.network_headers: a table of domain = [header names]; nothing is "
        "allowed",
    )
    config.write_text(
        '[sandbox]\nnetwork = ["*.example.org"]\n'
        'network_headers = { "*.example.org" = ["Authorization"], "example.org" = ["A"] }\n'
    )
    settings = user_sandbox_settings()
    assert [a.domain.shown() for a in settings.network_headers] == ["*.example.org"]
    assert settings.network_problems == (
        f"{config}:3: sandbox.network_headers.'example.org': example.org is not granted in "
        "sandbox.network (network_headers grants nothing by itself); no header is allowed",
    )


@pytest.mark.parametrize(
    ("inner", "outer", "inside"),
    [
        ("registry.example", "registry.example", True),
        ("registry.example:8443", "registry.example", False),
        ("registry.example", "registry.example:443", False),
        ("registry.example:443", "registry.example", True),
        ("a.example.org", "*.example.org", True),
        ("*.a.example.org", "*.example.org", True),
        ("*.example.org", "*.example.org", True),
        ("*.example.org", "example.org", False),
        ("example.org", "*.example.org", False),
    ],
)
def test_an_allowance_must_be_within_a_granted_entry(inner: str, outer: str, inside: bool) -> None:
    assert within(domain(inner), domain(outer)) is inside


def test_a_workspace_cannot_set_header_allowances(config: Path, tmp_path: Path) -> None:
    """The editor's workspace-level ``sandbox`` is ignored like every sensitive key, and the
    proxy reads only the person's own file."""
    config.write_text('[sandbox]\nnetwork = ["registry.example"]\n')
    workspace = {"sandbox": {"networkHeaders": {"registry.example": ["Authorization"]}}}
    settings = load_settings(editor=workspace, env={}, user_file=config)
    assert settings.sandbox.network_headers == ()
    assert user_sandbox_settings().network_headers == ()
    marked = load_settings(editor={"userLevel": workspace}, env={}, user_file=config)
    assert [a.domain.shown() for a in marked.sandbox.network_headers] == ["registry.example"]
