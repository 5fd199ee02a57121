// Records what Mastra writes for one agent run: an Agent of @mastra/core with
// a scripted AI SDK LanguageModelV2 (each call streams the next step) that
// calls get-sum of @modelcontextprotocol/server-everything through
// @mastra/mcp's MCPClient and answers, with MockMemory keeping the thread.
//
// Run with: @mastra/core 1.71.0, @mastra/mcp 2.0.0, Node 20.
//
// Usage: node mastra.mjs OUT COMMAND [ARG...]. Writes, to the directory OUT:
//   mastra_result_messages.json  JSON.stringify(result.messages) of
//                                agent.generate(...)
//   mastra_memory_messages.json  (await memory.recall({threadId})).messages,
//                                the thread's stored MastraDBMessage[]
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { MCPClient } from '@mastra/mcp';
import { writeFileSync } from 'node:fs';

const [out, command, ...args] = process.argv.slice(2);
const mcp = new MCPClient({ servers: { everything: { command, args } } });
const all = await mcp.listTools();
const tools = Object.fromEntries(Object.entries(all).filter(([name]) => name.endsWith('get-sum')));
const toolName = Object.keys(tools)[0];

const steps = [
  [{ type: 'tool-call', toolCallId: 'call_1', toolName, input: JSON.stringify({ a: 2, b: 3 }) }],
  [{ type: 'text-start', id: 't1' }, { type: 'text-delta', id: 't1', delta: 'The sum is 5.' }, { type: 'text-end', id: 't1' }],
];
const usage = [{ inputTokens: 120, outputTokens: 18, totalTokens: 138 }, { inputTokens: 150, outputTokens: 7, totalTokens: 157 }];
let n = 0;
const model = {
  specificationVersion: 'v2', provider: 'scripted', modelId: 'scripted-sum-1', supportedUrls: {},
  async doGenerate() {
    const i = n++;
    const content = steps[i].filter((p) => p.type === 'tool-call').concat(i === 1 ? [{ type: 'text', text: 'The sum is 5.' }] : []);
    return { content, finishReason: i === 0 ? 'tool-calls' : 'stop', usage: usage[i], warnings: [],
      response: { id: `resp_${i + 1}`, modelId: 'scripted-sum-1', timestamp: new Date(0) } };
  },
  async doStream() {
    const i = n++;
    const parts = [{ type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: `resp_${i + 1}`, modelId: 'scripted-sum-1', timestamp: new Date(0) },
      ...steps[i],
      { type: 'finish', finishReason: i === 0 ? 'tool-calls' : 'stop', usage: usage[i] }];
    return { stream: new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } }) };
  },
};

const memory = new MockMemory();
const agent = new Agent({ id: 'sum-agent', name: 'sum_agent', instructions: 'You add numbers.', model, tools, memory });
const result = await agent.generate('What is 2 + 3?', { memory: { thread: 'thread-1', resource: 'user-1' } });
writeFileSync(`${out}/mastra_result_keys.txt`, Object.keys(result).join('\n') + '\n');
writeFileSync(`${out}/mastra_result_messages.json`, JSON.stringify(result.messages, null, 2) + '\n');
writeFileSync(`${out}/mastra_result_response.json`, JSON.stringify(result.response, null, 2) + '\n');
const recalled = await memory.recall({ threadId: 'thread-1', resourceId: 'user-1' });
writeFileSync(`${out}/mastra_memory_messages.json`, JSON.stringify(recalled.messages, null, 2) + '\n');
await mcp.disconnect();
