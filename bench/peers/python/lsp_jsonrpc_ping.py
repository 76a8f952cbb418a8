"""A `ping` server on python-lsp-jsonrpc (the JSON-RPC layer of python-lsp-server).

The same contract as the other peers: LSP framing on stdin/stdout, `initialize` answered,
`ping` answered with `{}`, `shutdown` with null, `exit` (or end of input) ends the process.
Handlers run synchronously on the reading thread, which is how python-lsp-server serves most
requests.
"""
import sys

from pylsp_jsonrpc.dispatchers import MethodDispatcher
from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter


class PingServer(MethodDispatcher):
    def __init__(self, rfile, wfile):
        self.reader = JsonRpcStreamReader(rfile)
        self.writer = JsonRpcStreamWriter(wfile)
        self.endpoint = Endpoint(self, self.writer.write)
        self.shut_down = False

    def m_initialize(self, **_params):
        return {"serverInfo": {"name": "lsp-jsonrpc-ping"}, "capabilities": {}}

    def m_initialized(self, **_params):
        pass

    def m_ping(self, **_params):
        return {}

    def m_shutdown(self, **_params):
        self.shut_down = True
        return None

    def m_exit(self, **_params):
        self.endpoint.shutdown()
        self.reader.close()

    def run(self):
        self.reader.listen(self.endpoint.consume)
        return 0 if self.shut_down else 1


if __name__ == "__main__":
    sys.exit(PingServer(sys.stdin.buffer, sys.stdout.buffer).run())
