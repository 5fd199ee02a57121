// Records what the OpenAI Agents SDK for JS writes for agent runs that only
// hand off: a triage agent hands off to sum_agent, which answers without a
// tool (sum_agent has get-sum of the real server-everything, and does not
// call it). Both agents use one scripted Model, each request answered with
// the next response.
//
// Run with: @openai/agents 0.20.0, Node 20.
// Usage: node openai-agents-handoff.mjs OUT RUNS COMMAND [ARG...], writing to OUT:
//   openai_agents_handoff_history.json        result.history of the first run
//   openai_agents_handoff_raw_responses.json  result.rawResponses of the first run
//   openai_agents_handoff_history.jsonl       result.history of each run, one a line
import { Agent, run, MCPServerStdio, Usage, setTracingDisabled } from '@openai/agents';
import { writeFileSync } from 'node:fs';

const [out, runs, command, ...args] = process.argv.slice(2);
setTracingDisabled(true);
const msg = (id, text) => ({ type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
const call = (id, name, args) => ({ type: 'function_call', id: 'fc_' + id, callId: id, name, arguments: JSON.stringify(args), status: 'completed' });
function model(r) {
  const usage = (i, o) => new Usage({ requests: 1, inputTokens: i, outputTokens: o, totalTokens: i + o });
  const script = [
    { output: [call(`call_h${r}`, 'transfer_to_sum_agent', {})], usage: usage(80, 9), responseId: `resp_${r}_1` },
    { output: [msg(`msg_${r}`, `The sum is ${5 + r}.`)], usage: usage(150, 7), responseId: `resp_${r}_2` },
  ];
  let n = 0;
  return { async getResponse() { return script[n++]; }, async *getStreamedResponse() { throw new Error('not scripted'); } };
}
const results = [];
for (let r = 0; r < Number(runs); r++) {
  const mcp = new MCPServerStdio({ name: 'everything', command, args, cacheToolsList: true });
  await mcp.connect();
  try {
    const m = model(r);
    const sum = new Agent({ name: 'sum_agent', instructions: 'Add numbers with get-sum.', model: m, mcpServers: [mcp], mcpConfig: { convertSchemasToStrict: false } });
    const triage = new Agent({ name: 'triage', instructions: 'Hand arithmetic to sum_agent.', model: m, handoffs: [sum] });
    results.push(await run(triage, `What is 2 + ${3 + r}?`));
  } finally {
    await mcp.close();
  }
}
writeFileSync(`${out}/openai_agents_handoff_history.json`, JSON.stringify(results[0].history, null, 1) + '\n');
writeFileSync(`${out}/openai_agents_handoff_raw_responses.json`, JSON.stringify(results[0].rawResponses, null, 1) + '\n');
writeFileSync(`${out}/openai_agents_handoff_history.jsonl`, results.map((r) => JSON.stringify(r.history) + '\n').join(''));
console.log(results.map((r) => `${r.finalOutput} ${r.lastAgent.name}`).join(' | '));
