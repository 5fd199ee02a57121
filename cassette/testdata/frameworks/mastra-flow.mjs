// Records what Mastra writes for one agent run: an Agent (@mastra/core)
// with the AI SDK's MockLanguageModelV3 (ai/test) scripted to call get-sum
// of @modelcontextprotocol/server-everything, its tools from @mastra/mcp's
// MCPClient (named server_tool: everything_get-sum), then answer.
//
// Run with: @mastra/core 1.71, @mastra/mcp 2.0, ai 6 or 7 (for ai/test),
// Node 20.
//
// Usage: node mastra-flow.mjs OUT VARIANTS COMMAND [ARG...] (see variants.mjs);
// each run starts the server anew. Writes to the directory OUT, one line
// per run:
//   mastra_messages.jsonl           result.messages: the messages Mastra's
//                                   memory stores (format 2, the call in a
//                                   "tool-invocation" part's toolInvocation)
//   mastra_response_messages.jsonl  result.response.messages (the AI SDK's
//                                   ModelMessage form)
import { Agent } from '@mastra/core/agent';
import { MCPClient } from '@mastra/mcp';
import { MockLanguageModelV3 } from 'ai/test';
import { writeFileSync } from 'node:fs';
import { variants } from './variants.mjs';

const [out, names, command, ...args] = process.argv.slice(2);
const usage = (plan, i, o) => ({
  inputTokens: { total: i * plan.scale, noCache: i * plan.scale, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: o * plan.scale, text: o * plan.scale, reasoning: 0 },
});
const results = [];
for (const [k, plan] of variants(names).entries()) {
  const mcp = new MCPClient({ id: `mcptest-run-${k}`, servers: { everything: { command, args } } });
  try {
    const all = await mcp.listTools();
    const tools = plan.corpus ? { 'everything_get-sum': all['everything_get-sum'] } : all;
    const steps = [
      ...plan.numbered.map((calls) => ({
        content: calls.map(([id, tool, input]) => ({ type: 'tool-call', toolCallId: id, toolName: `everything_${tool}`, input: JSON.stringify(input) })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(plan, 120, 18), warnings: [],
      })),
      { content: [{ type: 'text', text: 'The sum is 5.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(plan, 150, 7), warnings: [] },
    ];
    let n = 0;
    const model = new MockLanguageModelV3({ provider: 'mock', modelId: 'mock-sum-1', doGenerate: async () => steps[n++] });
    const agent = new Agent({ id: 'sum-agent', name: 'sum-agent', instructions: 'Add numbers with the tools.', model, tools });
    results.push(await agent.generate('What is 2 + 3?', { maxSteps: plan.numbered.length + 2 }));
  } finally {
    await mcp.disconnect();
  }
}
writeFileSync(`${out}/mastra_messages.jsonl`, results.map((r) => JSON.stringify(r.messages) + '\n').join(''));
writeFileSync(`${out}/mastra_response_messages.jsonl`, results.map((r) => JSON.stringify(r.response.messages) + '\n').join(''));
console.log(results.map((r) => r.text).join(' '));
