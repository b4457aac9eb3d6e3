"""The network by grant: the one way out of the sandbox, for programs and sandboxed MCP
servers, and the check ``fetch`` and MCP servers over HTTP go through.

A sandboxed program has a network namespace of its own (bubblewrap's ``--unshare-all``): no
route anywhere, not even to the machine's loopback, whatever it tries (an address, another port,
DNS, a raw socket). A call the person granted domains to gets one more thing: a proxy that Foehn
runs outside (``proxy``), reached from inside through a bridge on the sandbox's own loopback
(``bridge``), with the standard proxy variables and npm's, yarn's, pip's, cargo's and git's own
settings pointing at it. The proxy is the policy: it reads the name each connection asks for
(``CONNECT host:port``, or the URL of a plain-HTTP request), allows it only when a granted domain
covers the name and the port (``grant``), resolves the name itself and refuses local and private
addresses unless the name is in ``network_local``, connects to the addresses it checked, and for
a tunnel lets the TLS handshake through only when its server name is the name asked for
(``tls``). A program that ignores the variables has no network at all; the bridge has no right of
its own. Every attempt, allowed or refused, becomes a ``Connection`` record with the bytes each
way, for the call's result, the audit log and the ``network`` event.

Why this shape (compared with the anchors): Claude Code's sandbox runtime also unshares the
network and bridges an HTTP and a SOCKS proxy in with ``socat`` over unix sockets, but its
proxies listen on the host's loopback, check the name only (no SNI, no resolved address), and
need ``socat`` installed; Codex's proxy checks names and local addresses but documents DNS
rebinding as out of reach, and bridges with its own compiled helper. Here the proxy listens on
a unix socket only (nothing on the host's loopback to find), pins the checked addresses, reads
the SNI, and the bridge is Foehn's own Python, which every view already shows. SOCKS5 is left
out: the clients that matter (pip, npm, yarn, cargo, git over HTTPS, curl) all speak HTTP
proxies, and SOCKS would carry connections with no name or TLS to check.

    grant.py    what a call may reach, and the check of a name and its addresses
    proxy.py    one call's proxy, outside the sandbox
    http.py     what the proxy reads of a request and writes in its place
    keys.py     whether a request may leave with the person's keys (their header allowances)
    tls.py      the server name of a TLS ClientHello
    bridge.py   the bridge inside the sandbox, and the variables that point at it
    service.py  the one event loop, on a thread of its own, that runs every call's proxy
"""

from foehn_lsp.sandbox.network.bridge import PROXY_PORT, environment
from foehn_lsp.sandbox.network.grant import Destination, Grant, Refused, destination, permitted
from foehn_lsp.sandbox.network.proxy import Access, Connection, Limits, Report
from foehn_lsp.sandbox.network.service import NetworkUnavailableError, Served, serving

__all__ = [
    "PROXY_PORT",
    "Access",
    "Connection",
    "Destination",
    "Grant",
    "Limits",
    "NetworkUnavailableError",
    "Refused",
    "Report",
    "Served",
    "destination",
    "environment",
    "permitted",
    "serving",
]
