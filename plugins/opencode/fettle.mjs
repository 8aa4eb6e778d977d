// fettle's plugin for opencode: every write of opencode's file tools (write, edit, apply_patch) goes through
// fettle's hook, as Claude Code's do. Before the tool runs, fettle records the file's previous bytes in git, or,
// for a large rewrite, stages it and stops the tool (thrown from tool.execute.before: opencode shows the model the
// text as the tool's error); after it ran, fettle records what landed and the model is told the change id. At the
// end of each turn, records whose tool never wrote are settled. Its `bash` tool is recorded as Claude Code's Bash
// is: a snapshot of what git lists before the command, what changed after it, as one changeset. Each user message
// starts a turn (`fettle rollback --turn`). The logic is fettle's own (`fettle hook`): this
// file only carries opencode's events there (`fettle hook --agent opencode`) and fettle's answers back.
//
// `fettle install --agent opencode` copies this file into opencode's plugin directory with FETTLE_COMMAND set to
// how this fettle runs; `fettle uninstall --agent opencode` removes it.
import { spawn } from 'node:child_process';

const FETTLE_COMMAND = ['fettle'];

const TOOLS = new Set(['write', 'edit', 'apply_patch', 'bash']);

/** opencode's `permission.edit`: a rule for every path, or the careful answer (opencode asks, the person decides). */
const editPermission = (config) => {
  const rule = config?.permission?.edit;
  if (rule === undefined) return 'allow';
  if (typeof rule === 'string') return rule;
  const keys = rule && typeof rule === 'object' ? Object.keys(rule) : [];
  return keys.length === 1 && keys[0] === '*' && typeof rule['*'] === 'string' ? rule['*'] : 'ask';
};

/** One `fettle hook --agent opencode` call: the event as JSON on stdin; its answer on stdout, its exit code. */
const hook = (payload, cwd) =>
  new Promise((resolve) => {
    const [command, ...args] = FETTLE_COMMAND;
    let stdout = '';
    let stderr = '';
    let child;
    try {
      child = spawn(command, [...args, 'hook', '--agent', 'opencode'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ code: null, stdout, stderr: String(error?.message ?? error) });
      return;
    }
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => resolve({ code: null, stdout, stderr: String(error?.message ?? error) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ fettle_adapter: 'opencode', ...payload }));
  });

/** A tool event as fettle's hook takes it: opencode's tool, session and call ids, and the tool's arguments. */
const eventOf = (event, input, args) => ({
  event,
  tool: input.tool,
  session: input.sessionID,
  call: input.callID,
  args,
});

export const FettlePlugin = async ({ directory, client }) => {
  let permission = 'allow';
  const log = (message) => {
    try {
      void client?.app?.log?.({ body: { service: 'fettle', level: 'warn', message } })?.catch?.(() => undefined);
    } catch {
      // logging is best effort
    }
  };
  /** fettle's answer: `{ block }` stops the tool, `{ note }` goes to the model; a fettle that cannot run is logged. */
  const ask = async (payload) => {
    const r = await hook({ directory, permission, ...payload }, directory);
    // Exit 2: fettle could not record and blocks the write so nothing is lost, saying why.
    if (r.code === 2) return { block: r.stderr.trim() || 'fettle blocked this write.' };
    if (r.code !== 0) {
      log(`fettle: ${r.stderr.trim() || `exited with ${r.code}`}`);
      return {};
    }
    try {
      return r.stdout.trim() ? JSON.parse(r.stdout) : {};
    } catch {
      log(`fettle answered what is not JSON: ${r.stdout.slice(0, 200)}`);
      return {};
    }
  };
  return {
    config: async (config) => {
      permission = editPermission(config);
    },
    'tool.execute.before': async (input, output) => {
      if (!TOOLS.has(input.tool)) return;
      const answer = await ask(eventOf('before', input, output.args));
      if (typeof answer.block === 'string') throw new Error(answer.block);
    },
    'tool.execute.after': async (input, output) => {
      if (!TOOLS.has(input.tool)) return;
      const answer = await ask(eventOf('after', input, input.args));
      if (typeof answer.note === 'string' && output && typeof output.output === 'string')
        output.output = `${output.output}\n\n${answer.note}`;
    },
    'chat.message': async (input, output) => {
      if (output?.message?.role !== 'user' || !input?.sessionID) return;
      const prompt = (output.parts ?? [])
        .filter((p) => p?.type === 'text' && typeof p.text === 'string')
        .map((p) => p.text)
        .join('\n');
      await ask({ event: 'prompt', tool: '', session: input.sessionID, call: '', args: {}, prompt });
    },
    event: async ({ event }) => {
      if (event?.type !== 'session.idle' || !event.properties?.sessionID) return;
      await ask({ event: 'idle', tool: '', session: event.properties.sessionID, call: '', args: {} });
    },
  };
};
