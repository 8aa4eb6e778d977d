// Entry point. Four bundles sit beside this file: `hook.js`, all that `fettle hook` (run on every Claude Code
// write) needs; `agents.js`, the same with the other agents' adapters, for `fettle hook --agent <name>`;
// `serve.js`, the resident hook server (`fettle serve` in the foreground); and `commands.js`, commander and every
// other command. Each is loaded with V8's code cache.
import { join } from 'node:path';
import { loadBundle } from './code-cache';

const args = process.argv.slice(2);
// `fettle [-C <dir>] hook [--agent <name>]`: the hook bundle, in <dir> when given. Anything else (help included)
// is commander's.
const [flag, dir] = args;
const hookArgs = flag === '-C' && dir !== undefined ? args.slice(2) : args;
if (hookArgs[0] === 'hook' && (hookArgs.length === 1 || (hookArgs.length === 3 && hookArgs[1] === '--agent'))) {
  if (hookArgs !== args) {
    try {
      process.chdir(dir as string);
    } catch {
      // The hook cannot record anything: say so, and let the write go on as with any hook input it cannot use.
      process.stderr.write(`fettle: -C ${dir}: no such directory; this tool call was not protected by fettle.\n`);
      process.exit(1);
    }
  }
  const agent = hookArgs[2];
  const bundle = agent === undefined || agent === 'claude' ? 'hook.js' : 'agents.js';
  const hook = loadBundle(join(__dirname, bundle), process.env) as typeof import('./hook/process');
  void hook.runHookProcess(agent);
} else if (args[0] === 'serve' && (args.length === 1 || (args.length === 2 && args[1] === '--takeover'))) {
  const serve = loadBundle(join(__dirname, 'serve.js'), process.env) as typeof import('./hook/serve');
  void serve.runServer(args[1] === '--takeover' ? 'takeover' : 'foreground');
} else {
  const commands = loadBundle(join(__dirname, 'commands.js'), process.env) as typeof import('./commands/index');
  void commands.main(args);
}
