"""A stand-in for wharf that sends, while the client's `dialog/list` waits for its answer, an
`exporter/snapshot` request carrying that very id: Vim's channel then hands the request to the
callback of the client's own request, and the answer to the channel's callback."""
import json
import sys


def read():
    header = b''
    while not header.endswith(b'\r\n\r\n'):
        byte = sys.stdin.buffer.read(1)
        if not byte:
            sys.exit(0)
        header += byte
    length = next(int(line.split(b':')[1]) for line in header.split(b'\r\n')
                  if line.lower().startswith(b'content-length'))
    return json.loads(sys.stdin.buffer.read(length))


def write(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b'Content-Length: %d\r\n\r\n' % len(body) + body)
    sys.stdout.buffer.flush()


log = open(sys.argv[1], 'w')
while True:
    message = read()
    log.write(json.dumps(message) + '\n')
    log.flush()
    method, ident = message.get('method'), message.get('id')
    if method == 'initialize':
        write({'jsonrpc': '2.0', 'id': ident, 'result': {'capabilities': {'presenter': 'frontend'}}})
    elif method == 'presentExporter':
        write({'jsonrpc': '2.0', 'id': ident, 'result': {'dialogId': 'd1'}})
    elif method == 'ping':
        write({'jsonrpc': '2.0', 'id': 900, 'method': 'exporter/snapshot',
               'params': {'dialogId': 'd1', 'documentIndex': 0, 'contentType': 'public.plain-text'}})
        write({'jsonrpc': '2.0', 'id': ident, 'method': 'exporter/snapshot',
               'params': {'dialogId': 'd1', 'documentIndex': 0, 'contentType': 'public.plain-text'}})
        write({'jsonrpc': '2.0', 'id': ident, 'result': {'pong': True}})
    elif method == 'shutdown':
        write({'jsonrpc': '2.0', 'id': ident, 'result': None})
    elif method == 'exit':
        sys.exit(0)
