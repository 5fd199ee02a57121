// Records what LlamaIndex.TS writes for one agent run: agent() of
// @llamaindex/workflow with a scripted LLM (a ToolCallLLM-shaped object
// whose chat stream answers with the next message) that calls get-sum of
// @modelcontextprotocol/server-everything, its tools from @llamaindex/tools'
// mcp(), then answers.
//
// Run with: llamaindex 0.12, @llamaindex/workflow 1.1, @llamaindex/tools
// 0.1, Node 20.
//
// Usage: node llamaindex-flow.mjs OUT VARIANTS COMMAND [ARG...] (see
// variants.mjs); each run starts the server anew. Writes to the directory
// OUT, one line per run:
//   llamaindex_messages.jsonl  the agent's memory after the run
//                              (state.memory.get()): ChatMessage[],
//                              a call in an assistant message's
//                              options.toolCall, its result in a user
//                              message's options.toolResult
//   llamaindex_events.jsonl    the workflow's events (runStream), each
//                              {"type": String(event), "data": event.data}
import { agent } from '@llamaindex/workflow';
import { mcp } from '@llamaindex/tools';
import { writeFileSync } from 'node:fs';
import { variants } from './variants.mjs';

const [out, names, command, ...args] = process.argv.slice(2);

// scripted is the model of one run: the plan's tool calls, then the answer.
function scripted(plan) {
  let n = 0;
  return {
    supportToolCall: true,
    metadata: { model: 'scripted-sum-1', temperature: 0, topP: 1, contextWindow: 8192, tokenizer: undefined, structuredOutput: false },
    async chat() {
      const step = n++;
      const chunks = step < plan.numbered.length
        ? [{ delta: '', raw: { usage: { input_tokens: 120 * plan.scale, output_tokens: 18 * plan.scale } }, options: { toolCall: plan.numbered[step].map(([id, name, input]) => ({ name, input, id })) } }]
        : [{ delta: 'The sum is 5.', raw: { usage: { input_tokens: 150 * plan.scale, output_tokens: 7 * plan.scale } } }];
      return (async function* () { yield* chunks; })();
    },
    async complete() {
      return { text: 'The sum is 5.', raw: null };
    },
  };
}

const messages = [];
const events = [];
for (const plan of variants(names)) {
  const server = mcp({ command, args, verbose: false });
  try {
    const all = await server.tools();
    const tools = plan.corpus ? all.filter((t) => t.metadata.name === 'get-sum') : all;
    const workflow = agent({ name: 'sum_agent', llm: scripted(plan), tools });
    const state = workflow.createInitialState();
    const run = await workflow.runStream('What is 2 + 3?', { state }).toArray();
    events.push(run.map((e) => ({ type: e.toString(), data: e.data })));
    messages.push(await state.memory.get());
  } finally {
    await server.cleanup();
  }
}
writeFileSync(`${out}/llamaindex_messages.jsonl`, messages.map((m) => JSON.stringify(m) + '\n').join(''));
writeFileSync(`${out}/llamaindex_events.jsonl`, events.map((e) => JSON.stringify(e) + '\n').join(''));
console.log(messages.map((m) => m.at(-1)?.content).join(' '));
