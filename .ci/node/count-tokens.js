// Reads a JSON array of strings on stdin and prints a JSON array of their
// cl100k_base token counts, with special-token text counted as ordinary
// text. The independent tokenizer mcptest's token counts are checked against.
const { getEncoding } = require("js-tiktoken");
const enc = getEncoding("cl100k_base");
let input = "";
// Decode as UTF-8 across chunks: a character split between two chunks
// would otherwise become two U+FFFD.
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const texts = JSON.parse(input);
  process.stdout.write(JSON.stringify(texts.map((t) => enc.encode(t, [], []).length)));
});
