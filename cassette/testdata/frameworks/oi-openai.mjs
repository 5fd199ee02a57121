// Records the OpenInference spans @arizeai/openinference-instrumentation-openai
// writes for a two-agent run on the OpenAI SDK: a triage agent (an AGENT span
// of @arizeai/openinference-core's traceAgent) asks its model which agent
// answers and hands over to sum_agent, an AGENT span inside it, whose model
// calls get-sum and echo of the real server-everything and answers. The model
// is scripted: the OpenAI client's fetch answers each request with the next
// Chat Completions response.
//
// Run with: openai 5.23.2, @arizeai/openinference-instrumentation-openai 4.2.7
// (@arizeai/openinference-core 2.7.1), @opentelemetry/sdk-trace-base 2.12.1,
// Node 20; see README.md.
//
// Usage: node oi-openai.mjs OUT COMMAND [ARG...], writing
// OUT/openinference_openai_agents.json, the spans as an OTLP JSON export
// request.
import { trace, context } from '@opentelemetry/api';
import { AsyncHooksContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { traceAgent } from '@arizeai/openinference-core';
import OpenAI from 'openai';
import { writeFileSync } from 'node:fs';
import { connect } from './mcpcall.mjs';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncHooksContextManager().enable());
trace.setGlobalTracerProvider(provider);
const inst = new OpenAIInstrumentation();
inst.setTracerProvider(provider);
inst.manuallyInstrument(OpenAI);

const [out, command, ...args] = process.argv.slice(2);
const usage = (p, c) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c });
const completion = (n, message, u) => ({ id: 'chatcmpl-' + n, object: 'chat.completion', created: 1764300000 + n, model: 'gpt-4o-2024-08-06',
  choices: [{ index: 0, message: { refusal: null, ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', logprobs: null }], usage: u });
const script = [
  completion(1, { role: 'assistant', content: 'sum_agent' }, usage(80, 2)),
  completion(2, { role: 'assistant', content: null, tool_calls: [
    { id: 'call_s1', type: 'function', function: { name: 'get-sum', arguments: '{"a":2,"b":3}' } },
    { id: 'call_s2', type: 'function', function: { name: 'echo', arguments: '{"message":"2 + 3"}' } }] }, usage(120, 18)),
  completion(3, { role: 'assistant', content: 'The sum is 5.' }, usage(150, 7)),
];
let n = 0;
const fetch = async () => new Response(JSON.stringify(script[n++]), { status: 200, headers: { 'content-type': 'application/json' } });
const openai = new OpenAI({ apiKey: 'sk-scripted', fetch, maxRetries: 0 });
const mcp = await connect(command, args);
const { tools } = await mcp.listTools();
const fn = (name) => { const t = tools.find((t) => t.name === name); return { type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }; };
const sumAgent = traceAgent(async (messages) => {
  const offered = [fn('get-sum'), fn('echo')];
  for (;;) {
    const r = await openai.chat.completions.create({ model: 'gpt-4o', messages, tools: offered });
    const m = r.choices[0].message;
    messages.push(m);
    if (!m.tool_calls) return m.content;
    for (const c of m.tool_calls) {
      const res = await mcp.callTool({ name: c.function.name, arguments: JSON.parse(c.function.arguments) });
      messages.push({ role: 'tool', tool_call_id: c.id, content: res.content.map((x) => x.text).join('') });
    }
  }
}, { name: 'sum_agent' });
const triage = traceAgent(async (prompt) => {
  const messages = [{ role: 'system', content: 'Name the agent that answers: sum_agent for arithmetic.' }, { role: 'user', content: prompt }];
  const r = await openai.chat.completions.create({ model: 'gpt-4o', messages });
  if (r.choices[0].message.content !== 'sum_agent') throw new Error('triage chose no agent');
  return sumAgent([{ role: 'system', content: 'Add numbers with get-sum.' }, ...messages.slice(1)]);
}, { name: 'triage' });
console.log(await triage('What is 2 + 3?'));
await mcp.close();
const body = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()));
writeFileSync(`${out}/openinference_openai_agents.json`, JSON.stringify(JSON.parse(body), null, 1) + '\n');
