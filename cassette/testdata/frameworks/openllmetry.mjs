// Records the spans OpenLLMetry (@traceloop/node-server-sdk) writes for
// agent runs on the OpenAI SDK with no workflow around them: each model call
// is a trace of its own. Each run asks its model, which calls get-sum and
// echo of the real server-everything (through the MCP TypeScript SDK's
// client), and answers. With MODE session, each run is wrapped in
// withAssociationProperties({session_id}); with MODE agents, in a workflow
// and two agents, one inside the other. The model is scripted: the OpenAI
// client's fetch answers each request with the next Chat Completions response.
//
// Run with: openai 5.23.2, @traceloop/node-server-sdk 0.27.0
// (@traceloop/instrumentation-openai 0.27.0), Node 20; see README.md.
//
// Usage: node openllmetry.mjs OUT FILE RUNS MODE COMMAND [ARG...]:
// `OUT openllmetry_rootless.json 2 - S stdio`, `OUT openllmetry_sessions.json
// 2 session S stdio` and `OUT openllmetry_agents.json 2 agents S stdio` (each
// run a withWorkflow around withAgent triage around withAgent sum_agent)
// wrote the corpus files.
import * as traceloop from '@traceloop/node-server-sdk';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import OpenAI from 'openai';
import { writeFileSync } from 'node:fs';
import { connect } from './mcpcall.mjs';

const [out, file, runs, mode, command, ...args] = process.argv.slice(2);
const exporter = new InMemorySpanExporter();
traceloop.initialize({ appName: 'sum-agent', exporter, disableBatch: true, traceloopSyncEnabled: false, silenceInitializationMessage: true,
  instrumentModules: { openAI: OpenAI } });
const usage = (p, c) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c });
const completion = (n, message, u) => ({ id: 'chatcmpl-' + n, object: 'chat.completion', created: 1764300000 + n, model: 'gpt-4o-2024-08-06',
  choices: [{ index: 0, message: { refusal: null, ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', logprobs: null }], usage: u });
const script = (r) => [
  completion(r * 3 + 1, { role: 'assistant', content: null, tool_calls: [{ id: `call_${r}a`, type: 'function', function: { name: 'get-sum', arguments: `{"a":2,"b":${3 + r}}` } }] }, usage(120, 18)),
  completion(r * 3 + 2, { role: 'assistant', content: null, tool_calls: [{ id: `call_${r}b`, type: 'function', function: { name: 'echo', arguments: `{"message":"sum ${5 + r}"}` } }] }, usage(140, 12)),
  completion(r * 3 + 3, { role: 'assistant', content: `The sum is ${5 + r}.` }, usage(160, 7)),
];
const responses = [];
for (let r = 0; r < Number(runs); r++) responses.push(...script(r));
let n = 0;
const fetch = async () => new Response(JSON.stringify(responses[n++]), { status: 200, headers: { 'content-type': 'application/json' } });
const openai = new OpenAI({ apiKey: 'sk-scripted', fetch, maxRetries: 0 });
const mcp = await connect(command, args);
const { tools } = await mcp.listTools();
const offered = tools.filter((t) => t.name === 'get-sum' || t.name === 'echo')
  .map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
async function agent(r) {
  const messages = [{ role: 'system', content: 'Add numbers with get-sum, then echo the sum.' }, { role: 'user', content: `What is 2 + ${3 + r}?` }];
  for (;;) {
    const res = await openai.chat.completions.create({ model: 'gpt-4o', messages, tools: offered });
    const m = res.choices[0].message;
    messages.push(m);
    if (!m.tool_calls) return m.content;
    for (const c of m.tool_calls) {
      const result = await mcp.callTool({ name: c.function.name, arguments: JSON.parse(c.function.arguments) });
      messages.push({ role: 'tool', tool_call_id: c.id, content: result.content.map((x) => x.text).join('') });
    }
  }
}
for (let r = 0; r < Number(runs); r++) {
  const go = () => agent(r);
  if (mode === 'agents') {
    // A workflow per run, the triage agent handing over to sum_agent inside it.
    console.log(await traceloop.withWorkflow({ name: 'sum-workflow' }, () =>
      traceloop.withAgent({ name: 'triage' }, () => traceloop.withAgent({ name: 'sum_agent' }, go))));
  } else {
    console.log(mode === 'session' ? await traceloop.withAssociationProperties({ session_id: `session-${r + 1}` }, go) : await go());
  }
}
await mcp.close();
const body = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()));
writeFileSync(`${out}/${file}`, JSON.stringify(JSON.parse(body), null, 1) + '\n');
