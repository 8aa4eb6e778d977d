// Who runs a command: an agent by its mark in the environment or its process above the command, else a person
// only with a terminal on stdin and stdout and the processes above known.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentProcess, type Caller, callerOf, type ProcessInfo } from '../../src/core/caller';

const proc = (name: string, ...argv: string[]): ProcessInfo => ({ pid: 4242, name, argv });
const SHELL = proc('bash', '/bin/bash', '-c', 'fettle confirm abcd1234');
const GEMINI = '/n/@google/gemini-cli/dist/index.js';

// [label, process, the agent it is]
const processes: [string, ProcessInfo, string | null][] = [
  ['Claude Code by its title', proc('claude', 'claude', '--resume'), 'Claude Code'],
  ['Claude Code run by its versioned file', proc('2.1.330', '/home/u/.local/bin/claude'), 'Claude Code'],
  [
    'Claude Code as node running its package',
    proc('node', 'node', '/n/@anthropic-ai/claude-code/cli.js'),
    'Claude Code',
  ],
  ['a node named claude (a copy of node)', proc('claude', '/tmp/x/claude', '/tmp/x/spawn.js'), 'Claude Code'],
  ['Codex, its native binary', proc('codex', '/opt/codex/codex', 'exec'), 'Codex'],
  ["Codex's npm launcher", proc('node', 'node', '/n/@openai/codex/bin/codex.js'), 'Codex'],
  ['Gemini CLI run with node flags', proc('node', 'node', '--max-old-space-size=8192', GEMINI), 'Gemini CLI'],
  ['opencode', proc('opencode', '/home/u/.opencode/bin/opencode'), 'opencode'],
  ["Cursor's agent under its node", proc('node', '/c/cursor-agent/v1/node', '/c/cursor-agent/v1/index.js'), 'Cursor'],
  ['a shell', SHELL, null],
  ['node running a project named after an agent', proc('node', 'node', '/src/claude/index.js'), null],
  ['an editor holding a path of an agent package', proc('vim', 'vim', GEMINI), null],
  ['the Cursor editor, where a person has a terminal', proc('cursor', '/usr/share/cursor/cursor'), null],
];
for (const [label, p, agent] of processes) test(`a process: ${label}`, () => assert.equal(agentProcess(p), agent));

/** A caller in a few words: `person`, `agent <via>`, `unknown <why>`. */
const said = (c: Caller): string =>
  c.who === 'agent' ? `agent ${c.via}` : c.who === 'unknown' ? `unknown ${c.why}` : c.who;
const CLAUDE = proc('claude', 'claude');
const UNDER_CLAUDE = 'agent under Claude Code (process 4242, claude)';
const SCRIPT = proc('script', 'script');
// [label, env, ancestors (parent first), terminal, who]
const callers: [string, Record<string, string>, ProcessInfo[] | null, boolean, string][] = [
  ["Claude Code's shell", { CLAUDECODE: '1' }, [SHELL], false, "agent in Claude Code's shell (CLAUDECODE=1)"],
  ['env -u CLAUDECODE under Claude Code', {}, [SHELL, CLAUDE], false, UNDER_CLAUDE],
  ['env -u CLAUDECODE under Claude Code, a terminal faked', {}, [SCRIPT, SHELL, CLAUDE], true, UNDER_CLAUDE],
  [
    "Codex's sandboxed shell",
    { CODEX_SANDBOX: 'seatbelt' },
    [SHELL],
    false,
    "agent in Codex's shell (CODEX_SANDBOX=seatbelt)",
  ],
  ["Cursor's agent shell", { CURSOR_AGENT: '1' }, [SHELL], true, "agent in Cursor's shell (CURSOR_AGENT=1)"],
  ['CLAUDECODE=0 is no mark', { CLAUDECODE: '0' }, [SHELL], true, 'person'],
  ['a person at a terminal', {}, [SHELL, proc('sshd', 'sshd')], true, 'person'],
  ['no agent above, no terminal', {}, [SHELL], false, 'unknown has no terminal on stdin and stdout'],
  ['a terminal, the processes above unknown', {}, null, true, 'unknown cannot see the processes it runs under'],
];
for (const [label, env, ancestors, terminal, who] of callers)
  test(`who runs it: ${label}`, () => assert.equal(said(callerOf({ env, ancestors, terminal })), who));
