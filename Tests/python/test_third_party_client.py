"""A general-purpose JSON-RPC client written by someone else drives the real binary.

python-lsp-jsonrpc's Endpoint is the JSON-RPC layer under python-lsp-server: if it can run a
whole lifecycle against wharf, so can any LSP-style client.
"""
import subprocess
import threading

from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter


def test_python_lsp_jsonrpc_endpoint_runs_the_lifecycle(wharf_path):
    process = subprocess.Popen(
        [wharf_path, "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    writer = JsonRpcStreamWriter(process.stdin)
    reader = JsonRpcStreamReader(process.stdout)
    received_notifications = []
    endpoint = Endpoint({}, writer.write)
    listener = threading.Thread(target=reader.listen, args=(endpoint.consume,), daemon=True)
    listener.start()

    result = endpoint.request(
        "initialize",
        {"processId": None, "clientInfo": {"name": "pylsp-jsonrpc-test"}, "capabilities": {}},
    ).result(timeout=10)
    assert result["serverInfo"]["name"] == "wharf"
    assert isinstance(result["protocolVersion"], str)
    endpoint.notify("initialized", {})

    assert endpoint.request("ping", {}).result(timeout=10) == {}

    assert endpoint.request("shutdown").result(timeout=10) is None
    endpoint.notify("exit")
    assert process.wait(timeout=10) == 0
    reader.close()
    writer.close()
    assert received_notifications == []
