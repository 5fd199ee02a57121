// Records what LlamaIndex.TS writes for one agent run: agent() of
// @llamaindex/workflow with a scripted ToolCallLLM (each call streams the
// next message) that calls get-sum of @modelcontextprotocol/server-everything
// (through the MCP TypeScript SDK's client, as a FunctionTool) and answers.
//
// Run with: llamaindex 0.12.1 (@llamaindex/core 0.6.22, @llamaindex/workflow
// 1.1.24), @modelcontextprotocol/sdk 1.32.2, Node 20.
//
// Usage: node llamaindex.mjs OUT COMMAND [ARG...], COMMAND ARG... starting
// the MCP server. With HANDOFF=1 in the environment the run is a
// multiAgent() workflow: a triage agent hands off (handOff) to sum_agent,
// which calls get-sum, and the files are named llamaindex_handoff_*.
// Writes, to the directory OUT:
//   llamaindex_chat_messages.json    JSON.stringify(await memory.get()), the
//                                    agent's ChatMessage[] after the run
//   llamaindex_workflow_events.json  JSON.stringify of the events of
//                                    agent.runStream(...), each {"type", "data"}
import { agent, multiAgent } from '@llamaindex/workflow';
import { tool } from 'llamaindex';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFileSync } from 'node:fs';

const [out, command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'llamaindex-agent', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));

// The scripted model: each chat call streams the next message.
const handoff = process.env.HANDOFF === '1';
const script = [
  ...(handoff ? [{ delta: '', options: { toolCall: [{ id: 'call_0', name: 'handOff', input: { toAgent: 'sum_agent', reason: 'it adds' } }] } }] : []),
  { delta: '', options: { toolCall: [{ id: 'call_1', name: 'get-sum', input: { a: 2, b: 3 } }] } },
  { delta: 'The sum is 5.' },
];
let n = 0;
const llm = {
  supportToolCall: true,
  metadata: { model: 'scripted-sum-1', temperature: 0, topP: 1, contextWindow: 8192, tokenizer: undefined, structuredOutput: false },
  async chat({ stream }) {
    const step = script[n++];
    if (!stream) return { message: { role: 'assistant', content: step.delta, options: step.options }, raw: null };
    return (async function* () { yield { delta: step.delta, options: step.options, raw: { model: 'scripted-sum-1' } }; })();
  },
  async complete() { throw new Error('not used'); },
};

const getSum = tool({
  name: 'get-sum',
  description: 'Returns the sum of two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async (input) => {
    const res = await client.callTool({ name: 'get-sum', arguments: input });
    return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
  },
});

let sumAgent = agent({ name: 'sum_agent', llm, tools: [getSum], systemPrompt: 'You add numbers.' });
if (handoff) {
  const { FunctionAgent } = await import('@llamaindex/workflow');
  const worker = new FunctionAgent({ name: 'sum_agent', description: 'Adds numbers', llm, tools: [getSum], systemPrompt: 'You add numbers.' });
  const triage = new FunctionAgent({ name: 'triage', description: 'Routes questions', llm, tools: [], canHandoffTo: [worker], systemPrompt: 'You route.' });
  sumAgent = multiAgent({ agents: [triage, worker], rootAgent: triage });
}
const events = [];
for await (const ev of sumAgent.runStream('What is 2 + 3?')) events.push(ev);
const last = events[events.length - 1];
const memory = last.data.state?.memory;
const messages = memory ? await memory.get() : [];
const prefix = handoff ? 'llamaindex_handoff' : 'llamaindex';
writeFileSync(`${out}/${prefix}_chat_messages.json`, JSON.stringify(messages, null, 2) + '\n');
writeFileSync(`${out}/${prefix}_workflow_events.json`, JSON.stringify(events, null, 2) + '\n');
await client.close();
