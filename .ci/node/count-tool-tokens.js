// Reads a JSON array of tools ({name, description, inputSchema}) on stdin
// and prints a JSON array of each tool's cl100k_base token count: its name,
// its description, and its inputSchema as JSON.stringify writes it with the
// keys of every object sorted ("" when it has none), each counted alone,
// with special-token text counted as ordinary text. The independent count
// mcptest's tool-surface tokens are checked against.
const { getEncoding } = require("js-tiktoken");
const enc = getEncoding("cl100k_base");
const count = (t) => (t ? enc.encode(t, [], []).length : 0);
const sorted = (v) => {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sorted(v[k]);
    return out;
  }
  return v;
};
let input = "";
// Decode as UTF-8 across chunks: a character split between two chunks
// would otherwise become two U+FFFD.
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const tools = JSON.parse(input);
  const schema = (s) => (s === undefined || s === null ? "" : JSON.stringify(sorted(s)));
  process.stdout.write(
    JSON.stringify(tools.map((t) => count(t.name) + count(t.description || "") + count(schema(t.inputSchema)))),
  );
});
