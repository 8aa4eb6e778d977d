// Entry point. Seven bundles sit beside this file: `hook.js`, all that `fettle hook` (run on every Claude Code
// write) needs; `agents.js`, the same with the other agents' adapters, for `fettle hook --agent <name>`;
// `serve.js`, the resident hook server (`fettle serve` in the foreground); `mcp.js`, the MCP server and its SDK;
// `glance.js`, `fettle status`, `fettle log` and the git hooks' `fettle git-hook` alone; `commands.js`, commander
// and every command; and `web.js`, the review page's server, which the commands load only for `fettle review --web`
// (the entry hands them the loader). Each is loaded with V8's code cache.
import { join } from 'node:path';
import { loadBundle } from './code-cache';
import { handOff } from './hook/thin';

const args = process.argv.slice(2);
// `fettle [-C <dir>] hook [--agent <name>]` runs a hook bundle, `fettle [-C <dir>] mcp` the MCP server's, in <dir>
// when given. Anything else (help included) is commander's.
const [flag, dir] = args;
const own = flag === '-C' && dir !== undefined ? args.slice(2) : args;
const isHook = own[0] === 'hook' && (own.length === 1 || (own.length === 3 && own[1] === '--agent'));
const isMcp = own.length === 1 && own[0] === 'mcp';
if ((isHook || isMcp) && own !== args) {
  try {
    process.chdir(dir as string);
  } catch {
    // Nothing can be recorded there: say so (for the hook, the write goes on as with any input it cannot use).
    const what = isHook ? 'this tool call was not protected by fettle' : 'the MCP server did not start';
    process.stderr.write(`fettle: -C ${dir}: no such directory; ${what}.\n`);
    process.exit(1);
  }
}
if (isHook) {
  const agent = own[2];
  // A running resident server takes the call first (hook/thin.ts); the hook's bundle loads only when it does not.
  void handOff(agent, process.env).then((handed) => {
    if (handed.answered) return;
    const bundle = agent === undefined || agent === 'claude' ? 'hook.js' : 'agents.js';
    const hook = loadBundle(join(__dirname, bundle), process.env) as typeof import('./hook/process');
    // No server ran: once this call is answered, one starts in the background for the calls after it.
    void hook.runHookProcess(agent, undefined, handed.read).then(() => handed.absent && hook.autostartServer());
  });
} else if (isMcp) {
  const mcp = loadBundle(join(__dirname, 'mcp.js'), process.env) as typeof import('./mcp/server');
  void mcp.runMcpServer();
} else if (
  args[0] === 'serve' &&
  (args.length === 1 || (args.length === 2 && /^--(takeover|auto)$/.test(args[1] ?? '')))
) {
  const serve = loadBundle(join(__dirname, 'serve.js'), process.env) as typeof import('./hook/serve');
  void serve.runServer(args[1] === '--takeover' ? 'takeover' : args[1] === '--auto' ? 'auto' : 'foreground');
} else {
  const page = () => (loadBundle(join(__dirname, 'web.js'), process.env) as typeof import('./web/server')).runPage;
  const commands = () => loadBundle(join(__dirname, 'commands.js'), process.env) as typeof import('./commands/index');
  const full = () => (argv: string[]) => commands().main(argv, undefined, { page });
  if (own[0] === 'status' || own[0] === 'log' || own[0] === 'git-hook') {
    const glance = loadBundle(join(__dirname, 'glance.js'), process.env, own[0]) as typeof import('./commands/glance');
    void glance.main(args, full);
  } else void full()(args);
}
