// One MCP session through `mcptest record`, opened by a client library as
// an agent opens it: TestProcessRecordHandshakes (handshakes_test.go) runs
// it with each library pinned in .ci/node-frameworks.
//
// Usage: node client.mjs CLIENT TOOL ARGS_JSON (--url URL | COMMAND [ARG...])
//
//   CLIENT  ai-sdk-mcp-1   @ai-sdk/mcp 1 (the AI SDK 6's), createMCPClient
//           ai-sdk-mcp-2   @ai-sdk/mcp 2 (the AI SDK 7's, under the alias
//                          ai-sdk-mcp-v2): server/discover first, a one-second
//                          timeout, then initialize on the same connection
//           mcp-sdk-1      the MCP TypeScript SDK's 1.x client
//                          (@modelcontextprotocol/sdk), initialize only
//           mcp-client-2   the MCP TypeScript SDK's 2.x client
//                          (@modelcontextprotocol/client): over stdio a
//                          server/discover probe in a process of its own,
//                          then the session
// It lists the tools, calls TOOL with ARGS_JSON and prints one JSON line:
// the number of tools and the call's text.
const [client, tool, input, ...target] = process.argv.slice(2);
const url = target[0] === '--url' ? target[1] : undefined;
const [command, ...args] = target;
const args0 = JSON.parse(input);

async function aiSDK(mod, stdio) {
  const { createMCPClient } = await import(mod);
  const transport = url ? { type: 'http', url } : new (await import(stdio)).Experimental_StdioMCPTransport({ command, args, stderr: 'ignore' });
  const c = await createMCPClient({ transport });
  try {
    const tools = await c.tools();
    const res = await tools[tool].execute(args0, { toolCallId: 'call_1', messages: [] });
    return { tools: Object.keys(tools).length, text: res.content.map((p) => p.text ?? p.type).join(' ') };
  } finally {
    await c.close();
  }
}

async function mcpSDK(Client, transport) {
  const c = new Client({ name: 'handshake-' + client, version: '1.0.0' });
  await c.connect(transport);
  try {
    const { tools } = await c.listTools();
    const res = await c.callTool({ name: tool, arguments: args0 });
    return { tools: tools.length, text: res.content.map((p) => p.text ?? p.type).join(' ') };
  } finally {
    await c.close();
  }
}

let out;
switch (client) {
  case 'ai-sdk-mcp-1':
    out = await aiSDK('@ai-sdk/mcp', '@ai-sdk/mcp/mcp-stdio');
    break;
  case 'ai-sdk-mcp-2':
    out = await aiSDK('ai-sdk-mcp-v2', 'ai-sdk-mcp-v2/mcp-stdio');
    break;
  case 'mcp-sdk-1': {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const transport = url
      ? new (await import('@modelcontextprotocol/sdk/client/streamableHttp.js')).StreamableHTTPClientTransport(new URL(url))
      : new (await import('@modelcontextprotocol/sdk/client/stdio.js')).StdioClientTransport({ command, args, stderr: 'ignore' });
    out = await mcpSDK(Client, transport);
    break;
  }
  case 'mcp-client-2': {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const transport = url
      ? new StreamableHTTPClientTransport(new URL(url))
      : new (await import('@modelcontextprotocol/client/stdio')).StdioClientTransport({ command, args, stderr: 'ignore' });
    out = await mcpSDK(Client, transport);
    break;
  }
  default:
    console.error(`unknown client ${JSON.stringify(client)}: ai-sdk-mcp-1, ai-sdk-mcp-2, mcp-sdk-1 or mcp-client-2`);
    process.exit(2);
}
console.log(JSON.stringify(out));
