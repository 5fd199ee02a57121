// Records what LangChain.js / LangGraph writes for one agent run:
// createReactAgent with a scripted chat model (each call answers with the
// next message) that calls get-sum of @modelcontextprotocol/server-everything
// through @langchain/mcp-adapters and answers.
//
// Run with: @langchain/core 1.4.0, @langchain/langgraph 1.7.3,
// @langchain/mcp-adapters 1.1.4, @arizeai/openinference-instrumentation-langchain
// 4.1.1 (with @opentelemetry/sdk-trace-base 2.12.1,
// @opentelemetry/context-async-hooks 2.12.1, @opentelemetry/otlp-transformer
// 0.223.1), Node 20; see README.md.
//
// Usage: node langchain.mjs OUT VARIANTS COMMAND [ARG...], where COMMAND
// ARG... start the MCP server (server-everything's bin and `stdio`, or
// `mcptest record ... --` in front of them) and VARIANTS names the runs,
// separated by commas (see variants.mjs); each run starts the server anew.
//
// VARIANTS corpus writes, to the directory OUT:
//   langchain_lc_messages.json      JSON.stringify(state.messages), the "lc": 1
//                                   constructor form
//   langchain_stored_messages.json  mapChatMessagesToStoredMessages(state.messages)
//   langchain_openinference_spans.json  the run's spans as OpenInference's
//                                   LangChain instrumentation writes them (Arize
//                                   Phoenix's conventions), one OTLP JSON export
// Other VARIANTS give the agent every tool of the server and write
// langchain_lc_messages.jsonl and langchain_stored_messages.jsonl (one line
// per run) and langchain_openinference_spans.json (a trace per run).
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { writeFileSync } from 'node:fs';
import { variants } from './variants.mjs';

const [out, names, command, ...args] = process.argv.slice(2);
const plans = variants(names);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
new LangChainInstrumentation({ tracerProvider: provider }).manuallyInstrument(CallbackManagerModule);
// The scripted chat model: each call answers with the next message.
class ScriptedChatModel extends BaseChatModel {
  constructor(messages) { super({}); this.messages = messages; this.n = 0; }
  _llmType() { return 'scripted'; }
  bindTools() { return this; }
  async _generate() {
    const message = this.messages[this.n++];
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

// once drives one agent run on a client of its own: the scripted model calls
// the plan's tools, then answers.
async function once(plan) {
  const meta = (i, o) => ({
    usage_metadata: { input_tokens: i * plan.scale, output_tokens: o * plan.scale, total_tokens: (i + o) * plan.scale },
    response_metadata: { model_name: 'scripted-sum-1' },
  });
  const model = new ScriptedChatModel([
    ...plan.numbered.map((calls) => new AIMessage({ content: '', tool_calls: calls.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' })), ...meta(120, 18) })),
    new AIMessage({ content: 'The sum is 5.', ...meta(150, 7) }),
  ]);
  const client = new MultiServerMCPClient({ mcpServers: { everything: { transport: 'stdio', command, args } } });
  try {
    const all = await client.getTools();
    const tools = plan.corpus ? all.filter((t) => t.name === 'get-sum') : all;
    const agent = createReactAgent({ llm: model, tools, name: 'sum_agent' });
    return (await agent.invoke({ messages: [{ role: 'user', content: 'What is 2 + 3?' }] })).messages;
  } finally {
    await client.close();
  }
}

const runs = [];
for (const plan of plans) {
  runs.push(await once(plan));
}
if (plans[0].corpus) {
  writeFileSync(`${out}/langchain_lc_messages.json`, JSON.stringify(runs[0], null, 1) + '\n');
  writeFileSync(`${out}/langchain_stored_messages.json`, JSON.stringify(mapChatMessagesToStoredMessages(runs[0]), null, 1) + '\n');
} else {
  writeFileSync(`${out}/langchain_lc_messages.jsonl`, runs.map((m) => JSON.stringify(m) + '\n').join(''));
  writeFileSync(`${out}/langchain_stored_messages.jsonl`, runs.map((m) => JSON.stringify(mapChatMessagesToStoredMessages(m)) + '\n').join(''));
}
await provider.forceFlush();
const spans = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
writeFileSync(`${out}/langchain_openinference_spans.json`, new TextDecoder().decode(spans) + '\n');
console.log(runs.map((m) => m.at(-1).content).join(' '), exporter.getFinishedSpans().length, 'spans');
