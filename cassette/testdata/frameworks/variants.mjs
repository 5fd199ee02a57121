// The scripted model's runs every framework script plays, by name. Each is
// one agent run asked "What is 2 + 3?": one model call per step, each
// making the step's tool calls (at once, as parallel tool calls), then one
// that answers "The sum is 5.", every call's tokens multiplied by scale.
//
//   corpus             the run the corpus files were recorded from: one step
//                      calling get-sum {a: 2, b: 3} (ai-sdk.mjs also writes
//                      its untraced runs); alone
//   baseline           two steps: get-sum {a: 2, b: 3}, then echo of the sum
//   wrong-tool         echo instead of get-sum
//   restricted         get-sum, and toggle-simulated-logging beside it: a tool
//                      that changes the server's state (readOnlyHint false);
//                      then echo
//   tokens             baseline's steps, three times the tokens
//   invalid-arguments  baseline's steps, get-sum without its required b
//   reordered          baseline's steps swapped: echo, then get-sum
//
// A plan's steps are lists of [tool, arguments]; calls is every step's
// calls in order. A script numbers the calls of a run call_1, call_2, ...
// across its steps.
const sum = ['get-sum', { a: 2, b: 3 }];
const echo = ['echo', { message: 'The sum is 5.' }];
const known = {
  corpus: { steps: [[sum]], scale: 1, corpus: true },
  baseline: { steps: [[sum], [echo]], scale: 1 },
  'wrong-tool': { steps: [[['echo', { message: '2 + 3' }]], [echo]], scale: 1 },
  restricted: { steps: [[sum, ['toggle-simulated-logging', {}]], [echo]], scale: 1 },
  tokens: { steps: [[sum], [echo]], scale: 3 },
  'invalid-arguments': { steps: [[['get-sum', { a: 2 }]], [echo]], scale: 1 },
  reordered: { steps: [[echo], [sum]], scale: 1 },
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
  return list.map((name) => {
    const plan = known[name];
    let n = 0;
    // numbered: each step's calls as [id, tool, arguments], ids across steps.
    const numbered = plan.steps.map((step) => step.map(([tool, input]) => [`call_${++n}`, tool, input]));
    return { ...plan, numbered, calls: plan.steps.flat() };
  });
}
