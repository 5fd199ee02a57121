// Records the spans OpenInference's OpenAI instrumentation
// (@arizeai/openinference-instrumentation-openai, Arize Phoenix's
// conventions) writes for an agent loop on the OpenAI SDK (openai-chat.mjs):
// LLM spans whose output messages carry the tool calls
// (llm.output_messages.N.message.tool_calls.M.tool_call.function.name), and
// no span for the tool's execution or the agent run.
//
// Run with: openai 6, @arizeai/openinference-instrumentation-openai 4,
// @opentelemetry/sdk-trace-base 2, @opentelemetry/otlp-transformer,
// @modelcontextprotocol/sdk 1, Node 20.
//
// Usage: node openinference-flow.mjs OUT VARIANTS COMMAND [ARG...] (see
// variants.mjs): writes OUT/openinference_openai_spans.json, every run's
// spans as one OTLP JSON export request.
import OpenAI from 'openai';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { writeFileSync } from 'node:fs';
import { runAgent } from './openai-chat.mjs';

const [out, names, command, ...args] = process.argv.slice(2);
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(OpenAI);
const texts = await runAgent(names, command, args);
await provider.forceFlush();
const spans = exporter.getFinishedSpans();
writeFileSync(`${out}/openinference_openai_spans.json`, new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)) + '\n');
console.log(texts.join(' '), spans.length, 'spans');
