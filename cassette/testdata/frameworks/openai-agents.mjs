// Records what the OpenAI Agents SDK for JS writes for one agent run: a
// triage agent hands off to sum_agent, which calls get-sum of
// @modelcontextprotocol/server-everything (MCPServerStdio) and answers; both
// agents use one scripted Model, each request answered with the next
// response. Tracing goes to a processor that keeps what the SDK would
// export.
//
// Run with: @openai/agents 0.20.0 (@openai/agents-core 0.20.0), Node 20
// (pinned in .ci/node-frameworks); see README.md.
//
// Usage: node openai-agents.mjs OUT VARIANTS COMMAND [ARG...], where COMMAND
// ARG... start the MCP server (server-everything's bin and `stdio`, or
// `mcptest record ... --` in front of them) and VARIANTS names the runs,
// separated by commas (see variants.mjs); each run connects to the server
// anew.
//
// VARIANTS corpus writes, to the directory OUT:
//   openai_agents_history.json        result.history (protocol items)
//   openai_agents_raw_responses.json  result.rawResponses (one per model call)
//   openai_agents_trace.json          the trace export, {"data": [trace,
//                                     spans...]} as the SDK's exporter posts it
// Other VARIANTS write openai_agents_history.jsonl (one line per run) and
// openai_agents_trace.json (a trace per run).
import { Agent, run, MCPServerStdio, Usage, setTraceProcessors, BatchTraceProcessor, setTracingDisabled, getGlobalTraceProvider } from '@openai/agents';
import { writeFileSync } from 'node:fs';
import { variants } from './variants.mjs';

const [out, names, command, ...args] = process.argv.slice(2);
const plans = variants(names);
const items = [];
const exporter = { async export(batch) { for (const i of batch) { const j = i.toJSON(); if (j) items.push(j); } } };
setTracingDisabled(false);
setTraceProcessors([new BatchTraceProcessor(exporter)]);
const msg = (id, text) => ({ type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
const call = (id, name, args) => ({ type: 'function_call', id: 'fc_' + id, callId: id, name, arguments: JSON.stringify(args), status: 'completed' });

// model is the scripted Model of one run: each request gets the next
// response, whatever it says. The SDK offers an MCP tool to the model under
// a function name with _ for - (get_sum).
function model(plan) {
  const usage = (i, o) => new Usage({ requests: 1, inputTokens: i * plan.scale, outputTokens: o * plan.scale, totalTokens: (i + o) * plan.scale });
  const steps = plan.numbered.map((calls, k) => ({
    output: calls.map(([id, tool, input]) => call(id, tool.replaceAll('-', '_'), input)), usage: usage(120, 18), responseId: `resp_${k + 2}`,
  }));
  const script = [
    { output: [call('call_h', 'transfer_to_sum_agent', {})], usage: usage(80, 9), responseId: 'resp_1' },
    ...steps,
    { output: [msg('msg_1', 'The sum is 5.')], usage: usage(150, 7), responseId: `resp_${steps.length + 2}` },
  ];
  let n = 0;
  return { async getResponse() { return script[n++]; }, async *getStreamedResponse() { throw new Error('not scripted'); } };
}

// once drives one agent run on a connection of its own.
async function once(plan) {
  // A slow machine starts the server behind `mcptest record` in more than
  // the SDK's 5 s: the session waits a minute.
  const mcp = new MCPServerStdio({ name: 'everything', command, args, cacheToolsList: true, clientSessionTimeoutSeconds: 60 });
  await mcp.connect();
  try {
    const m = model(plan);
    const sum = new Agent({ name: 'sum_agent', instructions: 'Add numbers with get-sum.', model: m, mcpServers: [mcp],
      mcpConfig: { convertSchemasToStrict: false } });
    const triage = new Agent({ name: 'triage', instructions: 'Hand arithmetic to sum_agent.', model: m, handoffs: [sum] });
    return await run(triage, 'What is 2 + 3?');
  } finally {
    await mcp.close();
  }
}

const results = [];
for (const plan of plans) {
  results.push(await once(plan));
}
if (plans[0].corpus) {
  writeFileSync(`${out}/openai_agents_history.json`, JSON.stringify(results[0].history, null, 1) + '\n');
  writeFileSync(`${out}/openai_agents_raw_responses.json`, JSON.stringify(results[0].rawResponses, null, 1) + '\n');
} else {
  writeFileSync(`${out}/openai_agents_history.jsonl`, results.map((r) => JSON.stringify(r.history) + '\n').join(''));
}
console.log(results.map((r) => `${r.finalOutput} ${r.lastAgent.name}`).join(' '));
await getGlobalTraceProvider().forceFlush();
writeFileSync(`${out}/openai_agents_trace.json`, JSON.stringify({ data: items }, null, 1) + '\n');
console.log(items.length, 'trace items');
