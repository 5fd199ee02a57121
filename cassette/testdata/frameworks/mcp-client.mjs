// An agent written directly on the MCP TypeScript SDK's client
// (@modelcontextprotocol/client 2.4.0, pinned in .ci/node-frameworks): no
// model, no log of its own; each run lists the tools and makes the calls of
// its variant (see variants.mjs), as an agent loop would at its model's
// word. Only `mcptest record` in front of the server sees the calls.
//
// Usage: node mcp-client.mjs OUT VARIANTS COMMAND [ARG...] (OUT is unused:
// the client writes nothing); each run starts the server anew.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { variants } from './variants.mjs';

const [, names, command, ...args] = process.argv.slice(2);
const texts = [];
for (const plan of variants(names)) {
  const client = new Client({ name: 'scripted-agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  try {
    await client.listTools();
    for (const [name, input] of plan.calls) {
      const result = await client.callTool({ name, arguments: input });
      texts.push(result.content.map((c) => c.text ?? c.type).join(' '));
    }
  } finally {
    await client.close();
  }
}
console.log(texts.join(' | '));
