// Records the UIMessage array the Vercel AI SDK builds for a chat UI
// (useChat keeps it, and apps save it): streamText with MockLanguageModelV3
// (ai/test) scripted to call get-sum of @modelcontextprotocol/server-everything
// (through @ai-sdk/mcp over stdio) and answer, its toUIMessageStream read
// into messages by readUIMessageStream.
//
// Run with: ai 6.0.326, @ai-sdk/mcp 1.0.102, Node 20; see README.md.
//
// Writes, to the directory named by the second argument:
//   ai_sdk_ui_messages.json  [the user's UIMessage, the assistant's]
import { streamText, stepCountIs, readUIMessageStream, simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { writeFileSync } from 'node:fs';

const [server, out] = process.argv.slice(2);
const usage = (i, o) => ({ inputTokens: { total: i, noCache: i, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: o, text: o, reasoning: 0 } });
const steps = [
  [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get-sum', input: '{"a":2,"b":3}' },
   { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(120, 18) }],
  [{ type: 'text-start', id: 't1' }, { type: 'text-delta', id: 't1', delta: 'The sum is 5.' }, { type: 'text-end', id: 't1' },
   { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(150, 7) }],
];
let n = 0;
const model = new MockLanguageModelV3({ provider: 'mock', modelId: 'mock-sum-1',
  doStream: async () => ({ stream: simulateReadableStream({ chunks: steps[n++] }) }) });
const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: server, args: ['stdio'], stderr: 'ignore' }) });
try {
  const all = await client.tools();
  const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is 2 + 3?' }] };
  const result = streamText({ model, tools: { 'get-sum': all['get-sum'] }, stopWhen: stepCountIs(3), prompt: 'What is 2 + 3?' });
  let last;
  for await (const m of readUIMessageStream({ stream: result.toUIMessageStream() })) last = m;
  writeFileSync(`${out}/ai_sdk_ui_messages.json`, JSON.stringify([user, last], null, 1) + '\n');
  console.log(JSON.stringify(last).slice(0, 300));
} finally {
  await client.close();
}
