// Records what the OpenAI Agents SDK for JS writes when a tool call fails:
// the triage agent hands off to sum_agent, which calls get-sum of
// @modelcontextprotocol/server-everything with an argument the server
// refuses, then answers; a scripted Model as in openai-agents.mjs.
//
// Run with: @openai/agents 0.20.0 (@openai/agents-core 0.20.0), Node 20; see
// README.md.
//
// Writes, to the directory named by the second argument:
//   openai_agents_error_history.json  result.history
//   openai_agents_error_trace.json    the trace export, {"data": [...]}
import { Agent, run, MCPServerStdio, Usage, setTraceProcessors, BatchTraceProcessor, setTracingDisabled, getGlobalTraceProvider } from '@openai/agents';
import { writeFileSync } from 'node:fs';
const [server, out] = process.argv.slice(2);
const items = [];
const exporter = { async export(batch) { for (const i of batch) { const j = i.toJSON(); if (j) items.push(j); } } };
setTracingDisabled(false);
setTraceProcessors([new BatchTraceProcessor(exporter)]);
const usage = (i, o) => new Usage({ requests: 1, inputTokens: i, outputTokens: o, totalTokens: i + o });
const msg = (id, text) => ({ type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
const call = (id, name, args) => ({ type: 'function_call', id: 'fc_' + id, callId: id, name, arguments: JSON.stringify(args), status: 'completed' });
const script = [
  { output: [call('call_h', 'transfer_to_sum_agent', {})], usage: usage(80, 9), responseId: 'resp_1' },
  { output: [call('call_1', 'get_sum', { a: 'two', b: 3 })], usage: usage(120, 18), responseId: 'resp_2' },
  { output: [msg('msg_1', 'I could not add them.')], usage: usage(150, 7), responseId: 'resp_3' },
];
let n = 0;
const model = { async getResponse() { return script[n++]; }, async *getStreamedResponse() { throw new Error('not scripted'); } };
const mcp = new MCPServerStdio({ name: 'everything', command: server, args: ['stdio'], cacheToolsList: true });
await mcp.connect();
try {
  const sum = new Agent({ name: 'sum_agent', instructions: 'Add numbers with get-sum.', model, mcpServers: [mcp],
    mcpConfig: { convertSchemasToStrict: false } });
  const triage = new Agent({ name: 'triage', instructions: 'Hand arithmetic to sum_agent.', model, handoffs: [sum] });
  const result = await run(triage, 'What is two + 3?');
  writeFileSync(`${out}/openai_agents_error_history.json`, JSON.stringify(result.history, null, 1) + '\n');
  console.log(result.finalOutput, result.lastAgent.name);
} finally {
  await mcp.close();
}
await getGlobalTraceProvider().forceFlush();
writeFileSync(`${out}/openai_agents_error_trace.json`, JSON.stringify({ data: items }, null, 1) + '\n');
console.log(items.length, 'trace items');
