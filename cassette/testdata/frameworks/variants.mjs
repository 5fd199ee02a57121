// The scripted model's runs every framework script plays, by name. Each is
// one agent run asked "What is 2 + 3?": one model call that makes the
// tool calls below (at once, as parallel tool calls), then one that answers
// "The sum is 5.", their tokens multiplied by scale.
//
//   corpus      the run the corpus files were recorded from (baseline's
//               calls; ai-sdk.mjs also writes its untraced runs); alone
//   baseline    get-sum {a: 2, b: 3}
//   wrong-tool  echo instead of get-sum
//   restricted  get-sum, and toggle-simulated-logging beside it: a tool that
//               changes the server's state (readOnlyHint false)
//   tokens      baseline's calls, three times the tokens
const sum = ['get-sum', { a: 2, b: 3 }];
const known = {
  corpus: { calls: [sum], scale: 1, corpus: true },
  baseline: { calls: [sum], scale: 1 },
  'wrong-tool': { calls: [['echo', { message: '2 + 3' }]], scale: 1 },
  restricted: { calls: [sum, ['toggle-simulated-logging', {}]], scale: 1 },
  tokens: { calls: [sum], scale: 3 },
};

// variants are the runs named in names, separated by commas; an unknown
// name, or corpus beside another, ends the script with exit code 2.
export function variants(names) {
  const list = String(names ?? '').split(',');
  for (const name of list) {
    if (!Object.hasOwn(known, name) || (name === 'corpus' && list.length > 1)) {
      console.error(`unknown variant ${JSON.stringify(name)}: a comma-separated list of ${Object.keys(known).slice(1).join(', ')}, or corpus alone`);
      process.exit(2);
    }
  }
  return list.map((name) => known[name]);
}
