// An agent loop written on the OpenAI SDK's chat completions (openai 6),
// the model scripted through the client's fetch (no network, no key), its
// tools those of the MCP server (through the MCP TypeScript SDK's 1.x
// client), for the instrumentations that trace the OpenAI SDK
// (openinference-flow.mjs, openllmetry-flow.mjs): each run is one agent run asked
// "What is 2 + 3?" playing a variant of variants.mjs.
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { variants } from './variants.mjs';

// scripted answers the chat completions of one run: the tool calls of the
// plan, then "The sum is 5.", with the variant's tokens.
function scripted(plan) {
  let n = 0;
  return async (url, init) => {
    const body = JSON.parse(init.body);
    const step = n++;
    const calling = step < plan.numbered.length;
    const message = calling
      ? { role: 'assistant', content: null, tool_calls: plan.numbered[step].map(([id, tool, input]) => ({ id, type: 'function', function: { name: tool, arguments: JSON.stringify(input) } })) }
      : { role: 'assistant', content: 'The sum is 5.' };
    const [i, o] = calling ? [120, 18] : [150, 7];
    const completion = {
      id: `chatcmpl-scripted-${step}`, object: 'chat.completion', created: 1764300000, model: body.model,
      choices: [{ index: 0, message, finish_reason: calling ? 'tool_calls' : 'stop', logprobs: null }],
      usage: { prompt_tokens: i * plan.scale, completion_tokens: o * plan.scale, total_tokens: (i + o) * plan.scale },
    };
    return new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

// runAgent plays the variants named in names against the MCP server
// command args, each run a new server: the final answers.
export async function runAgent(names, command, args) {
  const texts = [];
  for (const plan of variants(names)) {
    const mcp = new Client({ name: 'openai-chat-agent', version: '1.0.0' });
    await mcp.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
    try {
      const { tools } = await mcp.listTools();
      const offered = (plan.corpus ? tools.filter((t) => t.name === 'get-sum') : tools).map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
      const openai = new OpenAI({ apiKey: 'scripted', baseURL: 'http://scripted.invalid/v1', fetch: scripted(plan) });
      const messages = [{ role: 'system', content: 'You are sum_agent: add numbers with the tools.' }, { role: 'user', content: 'What is 2 + 3?' }];
      for (;;) {
        const res = await openai.chat.completions.create({ model: 'scripted-sum-1', messages, tools: offered });
        const msg = res.choices[0].message;
        messages.push(msg);
        if (!msg.tool_calls?.length) {
          texts.push(msg.content);
          break;
        }
        for (const call of msg.tool_calls) {
          const out = await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments) });
          messages.push({ role: 'tool', tool_call_id: call.id, content: out.content.map((c) => c.text ?? c.type).join(' ') });
        }
      }
    } finally {
      await mcp.close();
    }
  }
  return texts;
}
