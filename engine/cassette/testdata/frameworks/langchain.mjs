// Records what LangChain.js / LangGraph writes for one agent run:
// createReactAgent with a scripted chat model (each call answers with the
// next message) that calls get-sum of @modelcontextprotocol/server-everything
// through @langchain/mcp-adapters and answers.
//
// Run with: @langchain/core 1.4.0, @langchain/langgraph 1.7.3,
// @langchain/mcp-adapters 1.1.4, Node 20; see README.md.
//
// Writes, to the directory named by the second argument:
//   langchain_lc_messages.json      JSON.stringify(state.messages), the "lc": 1
//                                   constructor form
//   langchain_stored_messages.json  mapChatMessagesToStoredMessages(state.messages)
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { writeFileSync } from 'node:fs';
const [server, out] = process.argv.slice(2);
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
  console.log(state.messages.at(-1).content);
} finally {
  await client.close();
}
