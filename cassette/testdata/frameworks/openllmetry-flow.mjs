// Records the spans OpenLLMetry's OpenAI instrumentation
// (@traceloop/instrumentation-openai, Traceloop's GenAI conventions) writes
// for an agent loop on the OpenAI SDK (openai-chat.mjs): one span per chat
// completion and no root span, so nothing joins one agent run's spans but
// their time.
//
// Run with: openai 6, @traceloop/instrumentation-openai 0.27,
// @opentelemetry/sdk-trace-base 2, @opentelemetry/otlp-transformer,
// @modelcontextprotocol/sdk 1, Node 20.
//
// Usage: node openllmetry-flow.mjs OUT VARIANTS COMMAND [ARG...] (see
// variants.mjs): writes OUT/openllmetry_openai_spans.json, every run's
// spans as one OTLP JSON export request.
import OpenAI from 'openai';
import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { writeFileSync } from 'node:fs';
import { runAgent } from './openai-chat.mjs';

const [out, names, command, ...args] = process.argv.slice(2);
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const instrumentation = new OpenAIInstrumentation({ traceContent: true });
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(OpenAI);
const texts = await runAgent(names, command, args);
await provider.forceFlush();
const spans = exporter.getFinishedSpans();
writeFileSync(`${out}/openllmetry_openai_spans.json`, new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)) + '\n');
console.log(texts.join(' '), spans.length, 'spans');
