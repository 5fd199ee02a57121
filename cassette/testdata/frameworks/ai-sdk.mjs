// Records what the Vercel AI SDK writes for one agent run: generateText with
// MockLanguageModelV3 (ai/test) scripted to call get-sum of
// @modelcontextprotocol/server-everything (through @ai-sdk/mcp over stdio)
// and then answer, with experimental_telemetry on.
//
// Run with: ai 6.0.326 (or ai 7 with @ai-sdk/otel), @ai-sdk/mcp 1.0.102, @opentelemetry/sdk-trace-base
// 2.12.1, @opentelemetry/context-async-hooks 2.12.1,
// @opentelemetry/otlp-transformer 0.223.1, Node 20 (pinned in
// .ci/node-frameworks); see README.md.
//
// Usage: node ai-sdk.mjs OUT VARIANTS COMMAND [ARG...], where COMMAND ARG...
// start the MCP server (server-everything's bin and `stdio`, or `mcptest
// record ... --` in front of them) and VARIANTS names the runs, separated by
// commas (see variants.mjs); each run starts the server anew.
//
// VARIANTS corpus writes, to the directory OUT:
//   ai_sdk_messages.json      result.response.messages (ModelMessage array;
//                             AI SDK 7: result.responseMessages)
//   ai_sdk_response_messages.json  AI SDK 7 only: result.response.messages,
//                             the last step's messages alone
//   ai_sdk_spans.json         the spans of two runs as one OTLP JSON export
//                             request, with no context manager registered:
//                             each span is its own trace, as in a bare Node
//                             setup
//   ai_sdk_spans_lines.jsonl  the same spans, one export request per span
//   ai_sdk_spans_traced.json  a third run with AsyncLocalStorageContextManager:
//                             the spans share one trace
// Other VARIANTS (baseline, wrong-tool, restricted, tokens) run with the
// context manager registered, the model given every tool of the server,
// and write ai_sdk_messages.jsonl (one line per run) and
// ai_sdk_spans_traced.json (every run's spans, a trace per run).
import * as ai from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { writeFileSync } from 'node:fs';
import { variants } from './variants.mjs';

const { generateText, stepCountIs } = ai;
// AI SDK 7 moved OpenTelemetry out of experimental_telemetry's tracer: spans
// come only from an integration registered with registerTelemetry
// (@ai-sdk/otel's OpenTelemetry), and result.response.messages holds the
// last step only, the whole answer being result.responseMessages. The
// integration is registered once, its tracer the run's.
const v7 = typeof ai.registerTelemetry === 'function';
let tracer;
if (v7) {
  const { OpenTelemetry } = await import('@ai-sdk/otel');
  const current = { startSpan: (...a) => tracer.startSpan(...a), startActiveSpan: (...a) => tracer.startActiveSpan(...a) };
  ai.registerTelemetry(new OpenTelemetry({ tracer: current }));
}
const responseMessages = (result) => (v7 ? result.responseMessages : result.response.messages);
const [out, names, command, ...args] = process.argv.slice(2);
const plans = variants(names);
const usage = (plan, i, o) => ({
  inputTokens: { total: i * plan.scale, noCache: i * plan.scale, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: o * plan.scale, text: o * plan.scale, reasoning: 0 },
});
const script = (plan) => {
  const steps = [
    ...plan.numbered.map((calls) => ({
      content: calls.map(([id, tool, input]) => ({ type: 'tool-call', toolCallId: id, toolName: tool, input: JSON.stringify(input) })),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(plan, 120, 18), warnings: [],
    })),
    { content: [{ type: 'text', text: 'The sum is 5.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(plan, 150, 7), warnings: [] },
  ];
  let n = 0;
  return new MockLanguageModelV3({ provider: 'mock', modelId: 'mock-sum-1', doGenerate: async () => steps[n++] });
};
const otlp = (spans) => JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));

// run drives one agent run and returns its result and finished spans. The
// corpus offers the model get-sum alone, a variant every tool of the server.
async function run(plan) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  tracer = provider.getTracer('ai');
  const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command, args, stderr: 'ignore' }) });
  try {
    const all = await client.tools();
    const result = await generateText({
      model: script(plan), tools: plan.corpus ? { 'get-sum': all['get-sum'] } : all, stopWhen: stepCountIs(plan.numbered.length + 2), prompt: 'What is 2 + 3?',
      ...(v7 ? { telemetry: { isEnabled: true, functionId: 'sum-agent' } } : { experimental_telemetry: { isEnabled: true, functionId: 'sum-agent', tracer: tracer } }),
    });
    await provider.forceFlush();
    return { result, spans: exporter.getFinishedSpans() };
  } finally {
    await client.close();
  }
}

if (plans[0].corpus) {
  const bare = await run(plans[0]);
  const again = await run(plans[0]);
  const spans = [...bare.spans, ...again.spans];
  writeFileSync(`${out}/ai_sdk_messages.json`, JSON.stringify(responseMessages(bare.result), null, 1) + '\n');
  if (v7) {
    writeFileSync(`${out}/ai_sdk_response_messages.json`, JSON.stringify(bare.result.response.messages, null, 1) + '\n');
  }
  writeFileSync(`${out}/ai_sdk_spans.json`, JSON.stringify(otlp(spans)) + '\n');
  writeFileSync(`${out}/ai_sdk_spans_lines.jsonl`, spans.map((s) => JSON.stringify(otlp([s])) + '\n').join(''));
}
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const traced = [];
for (const plan of plans) {
  traced.push(await run(plan));
}
writeFileSync(`${out}/ai_sdk_spans_traced.json`, JSON.stringify(otlp(traced.flatMap((r) => r.spans))) + '\n');
if (!plans[0].corpus) {
  writeFileSync(`${out}/ai_sdk_messages.jsonl`, traced.map((r) => JSON.stringify(responseMessages(r.result)) + '\n').join(''));
}
console.log(traced.map((r) => r.result.text).join(' '), traced.reduce((n, r) => n + r.spans.length, 0), 'spans');
