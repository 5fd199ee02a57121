// Records what the Vercel AI SDK 7 (ai 7.0.173) gives a user for one agent
// run: generateText with a scripted MockLanguageModelV4 (ai/test) calls
// get-sum and echo of the real server-everything (tools whose execute calls
// the server through the MCP TypeScript SDK's client) over two steps and
// answers. Run with ai 7.0.173, Node 20; see README.md.
// Usage: node ai-sdk7.mjs OUT COMMAND [ARG...]. Writes to OUT:
//   ai_sdk7_response_messages.json  result.response.messages (AI SDK 7: the last step's only)
//   ai_sdk7_responses_messages.json result.responseMessages (every step's)
//   ai_sdk7_result.json             {"response": result.response, "responseMessages", "usage"}: the result saved whole
import { generateText, tool, stepCountIs, jsonSchema } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { writeFileSync } from 'node:fs';
import { connect } from './mcpcall.mjs';

const [out, command, ...args] = process.argv.slice(2);
const mcp = await connect(command, args);
const usage = (i, o) => ({ inputTokens: { total: i, noCache: i, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: o, text: o, reasoning: 0 } });
const steps = [
  { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get-sum', input: '{"a":2,"b":3}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(120, 18) },
  { content: [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'echo', input: '{"message":"sum 5"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(140, 12) },
  { content: [{ type: 'text', text: 'The sum is 5.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(160, 7) },
];
let n = 0;
const model = new MockLanguageModelV4({ provider: 'openai.chat', modelId: 'gpt-4o-2024-08-06', doGenerate: async () => ({ ...steps[n++], warnings: [], response: { id: 'resp-' + n, modelId: 'gpt-4o-2024-08-06', timestamp: new Date(0) } }) });
const { tools } = await mcp.listTools();
const mcpTool = (name) => { const t = tools.find((t) => t.name === name); return tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema), execute: (input) => mcp.callTool({ name, arguments: input }) }); };
const result = await generateText({ model, prompt: 'What is 2 + 3?', tools: { 'get-sum': mcpTool('get-sum'), echo: mcpTool('echo') }, stopWhen: stepCountIs(5) });
await mcp.close();
writeFileSync(`${out}/ai_sdk7_response_messages.json`, JSON.stringify(result.response.messages, null, 1) + '\n');
writeFileSync(`${out}/ai_sdk7_responses_messages.json`, JSON.stringify(result.responseMessages, null, 1) + '\n');
writeFileSync(`${out}/ai_sdk7_result.json`, JSON.stringify({ response: result.response, responseMessages: result.responseMessages, usage: result.usage }, null, 1) + '\n');
console.log(result.text, result.steps.length, 'steps');
