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
// Writes, to the directory named by the second argument:
//   langchain_lc_messages.json      JSON.stringify(state.messages), the "lc": 1
//                                   constructor form
//   langchain_stored_messages.json  mapChatMessagesToStoredMessages(state.messages)
//   langchain_openinference_spans.json  the run's spans as OpenInference's
//                                   LangChain instrumentation writes them (Arize
//                                   Phoenix's conventions), one OTLP JSON export
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { context } from '@opentelemetry/api';
import { AsyncHooksContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { writeFileSync } from 'node:fs';
const [server, out] = process.argv.slice(2);
context.setGlobalContextManager(new AsyncHooksContextManager().enable());
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
const meta = (i, o) => ({ usage_metadata: { input_tokens: i, output_tokens: o, total_tokens: i + o }, response_metadata: { model_name: 'scripted-sum-1' } });
const model = new ScriptedChatModel([
  new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'get-sum', args: { a: 2, b: 3 }, type: 'tool_call' }], ...meta(120, 18) }),
  new AIMessage({ content: 'The sum is 5.', ...meta(150, 7) }),
]);
const client = new MultiServerMCPClient({ mcpServers: { everything: { transport: 'stdio', command: server, args: ['stdio'] } } });
try {
  const tools = (await client.getTools()).filter((t) => t.name === 'get-sum');
  const agent = createReactAgent({ llm: model, tools, name: 'sum_agent' });
  const state = await agent.invoke({ messages: [{ role: 'user', content: 'What is 2 + 3?' }] });
  writeFileSync(`${out}/langchain_lc_messages.json`, JSON.stringify(state.messages, null, 1) + '\n');
  writeFileSync(`${out}/langchain_stored_messages.json`, JSON.stringify(mapChatMessagesToStoredMessages(state.messages), null, 1) + '\n');
  await provider.forceFlush();
  const spans = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
  writeFileSync(`${out}/langchain_openinference_spans.json`, new TextDecoder().decode(spans) + '\n');
  console.log(state.messages.at(-1).content, exporter.getFinishedSpans().length, 'spans');
} finally {
  await client.close();
}
