#!/usr/bin/env python3
"""Capture a server's tools/list result byte for byte.

Usage: capture.py OUT.json COMMAND ARGS...

Speaks newline-delimited JSON-RPC over the server's stdio: initialize,
notifications/initialized, tools/list (following nextCursor), and writes
the "result" object of tools/list exactly as the server sent it (one page:
the reference servers send all their tools in one). The captures in this
directory were made from the pinned servers in .ci/node with:

  capture.py everything.json  .ci/node/node_modules/.bin/mcp-server-everything
  capture.py filesystem.json  .ci/node/node_modules/.bin/mcp-server-filesystem /tmp
  MEMORY_FILE_PATH=/tmp/m.json capture.py memory.json .ci/node/node_modules/.bin/mcp-server-memory

The pinned MCP Inspector CLI (`mcp-inspector --cli SERVER --method
tools/list`) prints the same result, pretty-printed, for filesystem and
memory; for everything it adds get-roots-list, which that server lists
only to a client declaring the roots capability (this one declares none).
"""
import json, subprocess, sys

out, cmd = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

def send(msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()

def reply(id):
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("server closed stdout")
        if line.strip().startswith(b"{") and json.loads(line).get("id") == id:
            return line

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "capture", "version": "1"}}})
reply(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
line = reply(2)
# Cut the result out of the raw line so its bytes stay as the server wrote them.
raw = line.decode()
start = raw.index('"result":') + len('"result":')
dec = json.JSONDecoder()
_, end = dec.raw_decode(raw, start)
open(out, "w").write(raw[start:end] + "\n")
p.kill()
