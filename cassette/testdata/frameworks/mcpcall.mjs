// connect starts the MCP server COMMAND ARG... and returns a client of it,
// the MCP TypeScript SDK's (@modelcontextprotocol/client, pinned in
// .ci/node-frameworks): the agent loops of oi-openai.mjs, openllmetry.mjs and
// ai-sdk7.mjs call the server's tools through it, as an agent on a bare
// model client does.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export async function connect(command, args) {
  const client = new Client({ name: 'scripted-agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}
