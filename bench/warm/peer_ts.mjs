// One timed start of the TypeScript Agent SDK against a given Claude Code CLI, for warm_bench's
// --ts mode. Usage: node peer_ts.mjs cold|startup|claim CLI FOLDER [PARK_MS]
//
//   cold     query()                    timed from the call
//   startup  startup() → WarmQuery.query() timed from query(), PARK_MS (200) after startup() resolved
//   claim    prewarm() → spare.claim()   timed from claim(), PARK_MS (200) after prewarm() resolved
//
// The CLI's environment is this process's (warm_bench sets the stub API, HOME and the offline
// variables). Prints one line: milliseconds to system/init, first assistant message, result.
import { prewarm, query, startup } from '@anthropic-ai/claude-agent-sdk';

const [mode, cli, folder, parkArg] = process.argv.slice(2);
const park = Number(parkArg ?? 200);
if (!['cold', 'startup', 'claim'].includes(mode) || !cli || !folder) {
  console.error('usage: node peer_ts.mjs cold|startup|claim CLI FOLDER [PARK_MS]');
  process.exit(2);
}
const host = { pathToClaudeCodeExecutable: cli, env: { ...process.env } };
const prompt = 'hello';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(start, messages) {
  const marks = { init: 0, assistant: 0, result: 0 };
  for await (const message of messages) {
    const at = performance.now() - start;
    if (message.type === 'system' && message.subtype === 'init') marks.init = at;
    else if (message.type === 'assistant' && marks.assistant === 0) marks.assistant = at;
    else if (message.type === 'result') marks.result = at;
  }
  return marks;
}

let marks;
if (mode === 'cold') {
  const start = performance.now();
  marks = await timed(start, query({ prompt, options: { ...host, cwd: folder } }));
} else if (mode === 'startup') {
  const warm = await startup({ options: { ...host, cwd: folder } });
  await sleep(park);
  const start = performance.now();
  marks = await timed(start, warm.query(prompt));
} else {
  const spare = await prewarm({ options: host });
  await sleep(park);
  const start = performance.now();
  const messages = spare.claim({ prompt, options: { cwd: folder } });
  spare.claimed.catch((error) => {
    console.error(`claim refused: ${error.message}`);
    process.exit(1);
  });
  marks = await timed(start, messages);
}
console.log(`${marks.init.toFixed(1)} ${marks.assistant.toFixed(1)} ${marks.result.toFixed(1)}`);
