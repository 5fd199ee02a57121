// Records what the Vercel AI SDK writes for one agent run: generateText with
// MockLanguageModelV3 (ai/test) scripted to call get-sum of
// @modelcontextprotocol/server-everything (through @ai-sdk/mcp over stdio)
// and then answer, with experimental_telemetry on.
//
// Run with: ai 6.0.326, @ai-sdk/mcp 1.0.102, @opentelemetry/sdk-trace-base
// 2.12.1, @opentelemetry/context-async-hooks 2.12.1,
// @opentelemetry/otlp-transformer 0.223.1, Node 20; see README.md.
//
// Writes, to the directory named by the second argument:
//   ai_sdk_messages.json      result.response.messages (ModelMessage array)
//   ai_sdk_spans.json         the spans of two runs as one OTLP JSON export
//                             request, with no context manager registered:
//                             each span is its own trace, as in a bare Node
//                             setup
//   ai_sdk_spans_lines.jsonl  the same spans, one export request per span
//   ai_sdk_spans_traced.json  a second run with AsyncHooksContextManager:
//                             the spans share one trace
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { context } from '@opentelemetry/api';
import { AsyncHooksContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { writeFileSync } from 'node:fs';

const [server, out] = process.argv.slice(2);
const usage = (i, o) => ({ inputTokens: { total: i, noCache: i, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: o, text: o, reasoning: 0 } });
const script = () => {
  const steps = [
    { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get-sum', input: '{"a":2,"b":3}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(120, 18), warnings: [] },
    { content: [{ type: 'text', text: 'The sum is 5.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(150, 7), warnings: [] },
  ];
  let n = 0;
  return new MockLanguageModelV3({ provider: 'mock', modelId: 'mock-sum-1', doGenerate: async () => steps[n++] });
};
const otlp = (spans) => JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));

// run drives one agent run and returns its result and finished spans.
async function run() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: server, args: ['stdio'], stderr: 'ignore' }) });
  try {
    const all = await client.tools();
    const result = await generateText({
      model: script(), tools: { 'get-sum': all['get-sum'] }, stopWhen: stepCountIs(3), prompt: 'What is 2 + 3?',
      experimental_telemetry: { isEnabled: true, functionId: 'sum-agent', tracer: provider.getTracer('ai') },
    });
    await provider.forceFlush();
    return { result, spans: exporter.getFinishedSpans() };
  } finally {
    await client.close();
  }
}

const bare = await run();
const again = await run();
const spans = [...bare.spans, ...again.spans];
writeFileSync(`${out}/ai_sdk_messages.json`, JSON.stringify(bare.result.response.messages, null, 1) + '\n');
writeFileSync(`${out}/ai_sdk_spans.json`, JSON.stringify(otlp(spans)) + '\n');
writeFileSync(`${out}/ai_sdk_spans_lines.jsonl`, spans.map((s) => JSON.stringify(otlp([s])) + '\n').join(''));

context.setGlobalContextManager(new AsyncHooksContextManager().enable());
const traced = await run();
writeFileSync(`${out}/ai_sdk_spans_traced.json`, JSON.stringify(otlp(traced.spans)) + '\n');
console.log(bare.result.text, bare.spans.length, 'spans');
