"""A `ping` server on pygls, the generic language server framework.

The same contract as the other peers: LSP framing on stdin/stdout, `initialize` answered (pygls
does that itself, as does Wharf), `ping` answered with `{}`, `shutdown` with null, `exit` ends
the process. This is how a pygls server adds a custom request.
"""
from pygls.lsp.server import LanguageServer

server = LanguageServer("pygls-ping", "1.0")


@server.feature("ping")
def ping(_params):
    return {}


if __name__ == "__main__":
    server.start_io()
