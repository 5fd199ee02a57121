// Records what the OpenAI Agents SDK for JS writes for one agent run: a
// triage agent hands off to sum_agent, which calls get-sum of
// @modelcontextprotocol/server-everything (MCPServerStdio) and answers; both
// agents use one scripted Model, each request answered with the next
// response. Tracing goes to a processor that keeps what the SDK would
// export.
//
// Run with: @openai/agents 0.20.0 (@openai/agents-core 0.20.0), Node 20; see
// README.md.
//
// Writes, to the directory named by the second argument:
//   openai_agents_history.json        result.history (protocol items)
//   openai_agents_raw_responses.json  result.rawResponses (one per model call)
//   openai_agents_trace.json          the trace export, {"data": [trace,
//                                     spans...]} as the SDK's exporter posts it
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
// The scripted model: each request gets the next response, whatever it says.
const script = [
  { output: [call('call_h', 'transfer_to_sum_agent', {})], usage: usage(80, 9), responseId: 'resp_1' },
  { output: [call('call_1', 'get_sum', { a: 2, b: 3 })], usage: usage(120, 18), responseId: 'resp_2' },
  { output: [msg('msg_1', 'The sum is 5.')], usage: usage(150, 7), responseId: 'resp_3' },
];
let n = 0;
const model = { async getResponse() { return script[n++]; }, async *getStreamedResponse() { throw new Error('not scripted'); } };
const mcp = new MCPServerStdio({ name: 'everything', command: server, args: ['stdio'], cacheToolsList: true });
await mcp.connect();
try {
  const sum = new Agent({ name: 'sum_agent', instructions: 'Add numbers with get-sum.', model, mcpServers: [mcp],
    mcpConfig: { convertSchemasToStrict: false } });
  const triage = new Agent({ name: 'triage', instructions: 'Hand arithmetic to sum_agent.', model, handoffs: [sum] });
  const result = await run(triage, 'What is 2 + 3?');
  writeFileSync(`${out}/openai_agents_history.json`, JSON.stringify(result.history, null, 1) + '\n');
  writeFileSync(`${out}/openai_agents_raw_responses.json`, JSON.stringify(result.rawResponses, null, 1) + '\n');
  console.log(result.finalOutput, result.lastAgent.name);
} finally {
  await mcp.close();
}
await getGlobalTraceProvider().forceFlush();
writeFileSync(`${out}/openai_agents_trace.json`, JSON.stringify({ data: items }, null, 1) + '\n');
console.log(items.length, 'trace items');
