"""The peer for bench_server: an empty pygls server with one (empty) code action handler."""

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("empty", "0")


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
    return []


if __name__ == "__main__":
    server.start_io()
