"""The proxy of one call, driven as the bridge drives it (a TCP connection's descriptor sent
over its unix socket), against real servers on 127.0.0.1 reached by name. What counts is what
reached the servers and what the proxy recorded, not what it answered."""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foehn_lsp.config.headers import HeaderAllowance
from foehn_lsp.config.network import Domain, parse_domain
from foehn_lsp.sandbox.network import (
    Access,
    Connection,
    Grant,
    Limits,
    NetworkUnavailableError,
    Served,
    serving,
)
from foehn_lsp.sandbox.network.proxy import CallProxy
from foehn_lsp.secrets import Scrubber
from network_places import Counting, Names, Package, StandIn, TlsCounting, hosts_names

WAIT = 15.0


def domain(text: str) -> Domain:
    parsed = parse_domain(text, "test:1")
    assert isinstance(parsed, Domain), parsed
    return parsed


@pytest.fixture(scope="module")
def names() -> Iterator[Names]:
    with hosts_names() as found:
        yield found


@pytest.fixture
def site(names: Names) -> Iterator[StandIn]:
    server = StandIn(names.granted, Package(name="demo"))
    yield server
    server.shutdown()
    server.server_close()


def grant_for(names: Names, *ports: int, local: bool = True) -> Grant:
    return Grant(
        domains=tuple(domain(f"{names.granted}:{port}") for port in ports),
        local=(domain(names.granted),) if local else (),
    )


def connect(served: Served) -> socket.socket:
    """A client connection handed to the proxy as the bridge hands one."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        ours = socket.create_connection(listener.getsockname())
        theirs, _ = listener.accept()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as link:
        link.connect(str(served.socket))
        socket.send_fds(link, [b"c"], [theirs.fileno()])
    theirs.close()
    ours.settimeout(WAIT)
    return ours


def exchange(served: Served, data: bytes) -> bytes:
    """Send ``data``, read until the proxy closes."""
    with connect(served) as client:
        client.sendall(data)
        got = bytearray()
        while chunk := client.recv(65536):
            got += chunk
        return bytes(got)


def settled(served: Served, count: int) -> list[Connection]:
    deadline = time.monotonic() + WAIT
    while len(served.attempts) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return list(served.attempts)


def get(url: str, host: str, *extra: str) -> bytes:
    lines = [f"GET {url} HTTP/1.1", f"Host: {host}", *extra, "", ""]
    return "\r\n".join(lines).encode()


def test_a_granted_name_is_reached_with_the_urls_host_and_one_request(
    names: Names, site: StandIn
) -> None:
    with serving(Access(grant=grant_for(names, site.port), call="c1")) as served:
        answer = exchange(
            served,
            get(
                f"{site.url}/simple/demo/",
                "elsewhere.example",
                "Proxy-Authorization: Basic eDp5",
                "Connection: keep-alive, X-Drop",
                "X-Drop: 1",
            ),
        )
        (record,) = settled(served, 1)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert b"demo-1.0.0" in answer or b"demo" in answer
    (seen,) = site.seen
    assert seen.headers["host"] == f"{names.granted}:{site.port}"
    assert seen.headers["connection"] == "close"
    assert "proxy-authorization" not in seen.headers
    assert "x-drop" not in seen.headers
    assert record.allowed
    assert record.call == "c1"
    assert (record.host, record.port) == (names.granted, site.port)
    assert record.bytes_out > 0
    assert record.bytes_in == len(answer)
    assert record.reason.startswith(f"granted: {names.granted}:{site.port} (test:1)")


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("http://{other}:{port}/", "{other} is not granted"),
        ("http://{granted}:{wrong}/", "port {wrong} of {granted} is not granted"),
        ("http://127.0.0.1:{port}/", "127.0.0.1 is an address, not a granted name"),
        ("http://[::1]:{port}/", "::1 is an address, not a granted name"),
        ("http://2130706433:{port}/", "'2130706433' is not a domain name"),
    ],
)
def test_what_is_not_granted_never_reaches_a_server(
    names: Names, site: StandIn, target: str, why: str
) -> None:
    other = Counting()
    values = {
        "other": names.other,
        "granted": names.granted,
        "port": site.port,
        "wrong": other.port,
    }
    url = target.format(**values)
    try:
        with serving(Access(grant=grant_for(names, site.port), call="c2")) as served:
            answer = exchange(served, get(url, "x"))
            (record,) = settled(served, 1)
    finally:
        other.close()
    reason = why.format(**values)
    assert answer.startswith(f"HTTP/1.1 403 refused: {reason}".encode()), answer[:200]
    assert site.seen == []
    assert other.connections == 0
    assert not record.allowed
    assert record.reason == reason
    assert record.bytes_out == record.bytes_in == 0


def test_a_granted_name_that_resolves_here_needs_network_local(names: Names, site: StandIn) -> None:
    grant = grant_for(names, site.port, local=False)
    with serving(Access(grant=grant, call="c3")) as served:
        answer = exchange(served, get(f"{site.url}/", "x"))
        (record,) = settled(served, 1)
    assert b"403 refused" in answer
    assert site.seen == []
    assert "127.0.0.1, a loopback address" in record.reason
    assert "network_local" in record.reason


def _hello(server_name: str | None) -> bytes:
    """The first flight of a real TLS client asking for ``server_name``."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=server_name)
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def _tunnel(served: Served, host: str, port: int, first: bytes) -> tuple[bytes, bytes]:
    """CONNECT, then ``first``; what came back to each."""
    with connect(served) as client:
        client.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        reply = client.recv(65536)
        client.sendall(first)
        rest = bytearray()
        while chunk := client.recv(65536):
            rest += chunk
    return reply, bytes(rest)


def test_a_tunnel_carries_tls_for_the_name_asked_and_nothing_else(
    names: Names, tmp_path: Path
) -> None:
    server = TlsCounting(names.granted, tmp_path)
    try:
        grant = grant_for(names, server.port)
        with serving(Access(grant=grant, call="c4")) as served:
            for first in (_hello(names.other), _hello(None), b"GET / HTTP/1.1\r\n\r\n"):
                reply, rest = _tunnel(served, names.granted, server.port, first)
                assert reply.startswith(b"HTTP/1.1 200"), reply
                assert rest == b""
            refused = settled(served, 3)
            assert server.connections == 0  # the server never heard of any of them
            context = ssl.create_default_context(cafile=str(server.cert))
            with connect(served) as raw:
                raw.sendall(f"CONNECT {names.granted}:{server.port} HTTP/1.1\r\n\r\n".encode())
                assert raw.recv(65536).startswith(b"HTTP/1.1 200")
                with context.wrap_socket(raw, server_hostname=names.granted) as tls:
                    tls.sendall(b"GET / HTTP/1.0\r\n\r\n")
                    assert b"ok" in tls.recv(65536)
            allowed = settled(served, 4)[3]
    finally:
        server.close()
    assert [r.allowed for r in refused] == [False, False, False]
    assert refused[0].reason == f"the TLS handshake names {names.other}, not {names.granted}"
    assert refused[1].reason.startswith("the TLS handshake names no server")
    assert "only TLS goes through a tunnel" in refused[2].reason
    assert all(r.bytes_out == 0 for r in refused)
    assert server.handshakes == 1
    assert allowed.allowed
    assert allowed.bytes_out > 0


def test_a_plain_request_with_a_secret_is_refused_and_a_second_request_never_leaves(
    names: Names, site: StandIn
) -> None:
    token = "sk-" + "a1b2c3d4" * 4
    access = Access(grant=grant_for(names, site.port), call="c5", secrets=Scrubber())
    with serving(access) as served:
        secret = exchange(served, get(f"{site.url}/x", "x", f"Authorization: Bearer {token}"))
        pipelined = get(f"{site.url}/first", "x") + get(f"{site.url}/second-CANARY", "x")
        exchange(served, pipelined)
        chunked = exchange(
            served,
            (
                f"POST {site.url}/up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                "5\r\nhello\r\n0\r\n\r\n"
            ).encode(),
        )
        records = settled(served, 3)
    assert secret.startswith(b"HTTP/1.1 403 refused: the request carries one of the person")
    assert chunked.startswith(b"HTTP/1.1 400 refused: a chunked request body")
    assert [seen.path for seen in site.seen] == ["/first"]
    assert all(token not in str(seen.headers) for seen in site.seen)
    assert [r.allowed for r in records] == [False, True, False]


def test_slow_and_huge_answers_are_cut(names: Names, site: StandIn) -> None:
    silent = Counting(hold=True)
    try:
        limits = Limits(idle_seconds=0.5, max_bytes_in=100_000)
        grant = grant_for(names, site.port, silent.port)
        with serving(Access(grant=grant, call="c6"), limits) as served:
            big = exchange(served, get(f"{site.url}/big", "x"))
            started = time.monotonic()
            quiet = exchange(served, get(f"http://{names.granted}:{silent.port}/", "x"))
            waited = time.monotonic() - started
            huge, slow = settled(served, 2)
    finally:
        silent.close()
    assert len(big) == 100_000  # exactly the limit, then the cut
    assert big.startswith(b"HTTP/1.1 200 OK")
    assert huge.reason == "cut: the call received more than 100,000 bytes"
    assert huge.allowed
    assert huge.bytes_in == 100_000
    assert quiet == b""
    assert slow.reason == "cut: nothing either way for 0.5 s"
    assert waited < WAIT


def test_connections_over_the_limit_and_descriptors_that_are_not_sockets_are_dropped(
    names: Names, site: StandIn
) -> None:
    limits = Limits(max_connections=2, head_seconds=5)
    with serving(Access(grant=grant_for(names, site.port), call="c7"), limits) as served:
        held = [connect(served), connect(served)]
        time.sleep(0.2)
        third = connect(served)
        assert third.recv(10) == b""  # closed at once
        reading, writing = os.pipe()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as link:
            link.connect(str(served.socket))
            socket.send_fds(link, [b"c"], [reading])
        os.close(reading)
        os.close(writing)
        for client in held:
            client.close()
        answer = exchange(served, get(f"{site.url}/simple/demo/", "x"))
        records = settled(served, 4)
    assert answer.startswith(b"HTTP/1.1 200")
    assert records[0].reason == "too many connections open at once"
    assert [r.allowed for r in records[1:]] == [False, False, True]


def test_a_proxy_that_cannot_start_says_so_in_one_line(
    names: Names, site: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # where its private folder goes
    access = Access(grant=grant_for(names, site.port), call="c8")
    with serving(access):
        pass  # the proxies' thread is running
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(fd) for fd in os.listdir("/proc/self/fd"))
    # No descriptor left to open: the proxy's socket cannot be made (a real fault, not a patch).
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1, hard))
    fillers = []
    try:
        while True:
            try:
                fillers.append(os.open(os.devnull, os.O_RDONLY))
            except OSError:
                break
        with pytest.raises(NetworkUnavailableError) as raised, serving(access):
            pass
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert list(tmp_path.iterdir()) == []  # its folder is gone too
    message = str(raised.value)
    assert message.startswith("the network proxy could not start")
    assert "\n" not in message


def test_a_secret_in_the_name_asked_for_is_refused_before_the_name_is_resolved(
    names: Names,
) -> None:
    secret = "canary-secret-0123456789"
    grant = Grant(domains=(domain(f"*.{names.granted}"),))
    access = Access(grant=grant, call="c9", secrets=Scrubber([secret]))
    with serving(access) as served:
        answer = exchange(served, f"CONNECT {secret}.{names.granted}:443 HTTP/1.1\r\n\r\n".encode())
        (record,) = settled(served, 1)
    assert answer.startswith(b"HTTP/1.1 403 refused: the request carries one of the person")
    assert record.reason == "the request carries one of the person's keys or tokens"


def allowing(names: Names, port: int, *headers: str) -> HeaderAllowance:
    return HeaderAllowance(domain=domain(f"{names.granted}:{port}"), headers=headers)


def test_a_key_leaves_only_in_the_header_allowed_for_its_domain(
    names: Names, site: StandIn
) -> None:
    """``[sandbox.network_headers]``: the key reaches the granted registry in ``Authorization``
    and nowhere else: not in the URL, not in another header, not to another granted name, not
    in a tunnel's head. Counted at the servers."""
    token = "sk-" + "f00dcafe" * 4
    other = Counting()
    try:
        grant = Grant(
            domains=(domain(f"{names.granted}:{site.port}"), domain(f"{names.other}:{other.port}")),
            local=(domain(names.granted), domain(names.other)),
            headers=(allowing(names, site.port, "Authorization", "X-Registry-Token"),),
        )
        with serving(Access(grant=grant, call="h1", secrets=Scrubber([token]))) as served:
            sent = exchange(
                served, get(f"{site.url}/simple/demo/", "x", f"authorization: Bearer {token}")
            )
            refused = [
                exchange(served, get(f"{site.url}/simple/demo/?k={token}", "x")),
                exchange(served, get(f"{site.url}/simple/demo/", "x", f"X-Other: {token}")),
                exchange(
                    served,
                    get(
                        f"{site.url}/simple/demo/",
                        "x",
                        f"Authorization: Bearer {token}",
                        f"Cookie: k={token}",
                    ),
                ),
                exchange(
                    served,
                    get(f"http://{names.other}:{other.port}/", "x", f"Authorization: {token}"),
                ),
                exchange(
                    served,
                    f"CONNECT {names.granted}:{site.port} HTTP/1.1\r\n"
                    f"Authorization: {token}\r\n\r\n".encode(),
                ),
            ]
            records = settled(served, 6)
    finally:
        other.close()
    assert sent.startswith(b"HTTP/1.1 200"), sent[:200]
    (seen,) = site.seen  # the allowed request, and only it
    assert seen.headers["authorization"] == f"Bearer {token}"
    assert token not in seen.path
    assert other.connections == 0
    assert bytes(other.received) == b""
    assert all(
        answer.startswith(b"HTTP/1.1 403 refused: the request carries") for answer in refused
    )
    by_allowed = {r.allowed: r for r in records}
    assert by_allowed[True].reason == (
        f"granted: {names.granted}:{site.port} (test:1), carrying a key in authorization, "
        f"allowed for {names.granted}:{site.port} by test:1"
    )
    denied = [r for r in records if not r.allowed]
    assert len(denied) == 5
    assert all(r.bytes_out == 0 for r in denied)
    only = (
        f"; only Authorization, X-Registry-Token for {names.granted}:{site.port} may carry one "
        "(test:1)"
    )
    reasons = sorted(r.reason for r in denied)
    assert reasons.count("the request carries one of the person's keys or tokens") == 2
    assert reasons.count(f"the request carries one of the person's keys or tokens{only}") == 3


def test_without_an_allowance_a_key_in_authorization_is_refused_as_before(
    names: Names, site: StandIn
) -> None:
    token = "sk-" + "f00dcafe" * 4
    grant = Grant(
        domains=(domain(f"{names.granted}:{site.port}"),),
        local=(domain(names.granted),),
        headers=(HeaderAllowance(domain=domain(f"{names.granted}:1"), headers=("Authorization",)),),
    )
    with serving(Access(grant=grant, call="h2", secrets=Scrubber([token]))) as served:
        answer = exchange(served, get(f"{site.url}/x", "x", f"Authorization: {token}"))
        (record,) = settled(served, 1)
    assert answer.startswith(b"HTTP/1.1 403 refused: the request carries one of the person")
    assert record.reason == "the request carries one of the person's keys or tokens"
    assert site.seen == []


def test_a_closing_proxy_leaves_no_descriptor_watched_for_another_connection(
    tmp_path: Path,
) -> None:
    """Every call's proxy shares one loop (``service``). Seen once in a few suite runs: a proxy
    closed its listening socket before its accept was cancelled, and a connection another call's
    proxy opened in that moment got the same descriptor number, which the loop still watched
    for the old socket: it failed with "could not connect (127.0.0.1: No such file or
    directory)"."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        address = server.getsockname()

        async def race() -> None:
            proxy = CallProxy(Access(grant=Grant(), call="c"), tmp_path / "p.sock", Limits())
            await proxy.start()
            await asyncio.sleep(0)  # its accept now waits on the loop

            async def another_calls_connection() -> None:
                _, writer = await asyncio.open_connection(*address)
                writer.close()

            other = asyncio.ensure_future(another_calls_connection())  # runs as close() waits
            await proxy.close()
            await asyncio.wait_for(other, WAIT)

        for _ in range(20):
            asyncio.run(race())
            (tmp_path / "p.sock").unlink()
