// Entry point. The hook path (`fettle hook`, run on every agent write) loads only what it needs; every other
// command lives in a second bundle, loaded on demand, so the hook never pays for commander and friends.
import { runHookProcess } from './hook/process';

const args = process.argv.slice(2);
if (args[0] === 'hook' && args.length === 1) {
  void runHookProcess();
} else {
  // Resolved at run time next to this file (dist/commands.js); see scripts/build.mjs.
  const commands = require('./commands.js') as typeof import('./commands/index');
  void commands.main(args);
}
