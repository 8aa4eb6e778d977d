// Which agent a hook input comes from (src/hook/agents/detect.ts), and the one answer to an input from none:
// the call goes ahead unprotected, and one line says so, with exit 1 (a non-blocking error to every agent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentOf } from '../../../src/hook/agents/detect';
import { runCli } from '../../helpers/cli';
import { makeRepo } from '../../helpers/repo';

// [label, payload, --agent, expected]
const CASES: [string, Record<string, unknown>, string | undefined, string | null][] = [
  [
    'Claude Code PreToolUse',
    { hook_event_name: 'PreToolUse', permission_mode: 'default', tool_name: 'Write' },
    undefined,
    'claude',
  ],
  ['Claude Code SessionEnd', { hook_event_name: 'SessionEnd', reason: 'exit' }, undefined, 'claude'],
  [
    'Codex PreToolUse (turn_id)',
    { hook_event_name: 'PreToolUse', turn_id: 't', model: 'm', tool_name: 'apply_patch' },
    undefined,
    'codex',
  ],
  ['Gemini BeforeTool', { hook_event_name: 'BeforeTool', tool_name: 'write_file' }, undefined, 'gemini'],
  [
    'Gemini SessionEnd (timestamp, no permission_mode)',
    { hook_event_name: 'SessionEnd', timestamp: 'x' },
    undefined,
    'gemini',
  ],
  ['Cursor afterFileEdit', { hook_event_name: 'afterFileEdit', conversation_id: 'c' }, undefined, 'cursor'],
  ['Cursor running a Claude Code hook', { hook_event_name: 'PreToolUse', cursor_version: '2.0' }, undefined, 'cursor'],
  ['an explicit --agent wins', { hook_event_name: 'PreToolUse' }, 'codex', 'codex'],
  ['an unknown --agent', { hook_event_name: 'PreToolUse' }, 'vim', null],
  ['no event', {}, undefined, null],
  ['an event no agent sends', { hook_event_name: 'pretooluse' }, undefined, null],
];
for (const [label, payload, explicit, expected] of CASES)
  test(`agentOf: ${label} -> ${expected}`, () => assert.equal(agentOf(payload, explicit), expected));

// [label, args, stdin, what the line says]
const UNKNOWN: [string, string[], unknown, RegExp][] = [
  [
    'an input no adapter understands',
    ['hook'],
    { hook_event_name: 'OnSave', file: 'a.txt' },
    /^fettle: this hook input comes from no agent fettle knows \(hook_event_name "OnSave"; it knows Claude Code, Codex CLI, Gemini CLI, Cursor\); this tool call was not protected by fettle\.\n$/,
  ],
  ['an input without an event', ['hook'], { tool_name: 'Write' }, /hook_event_name none/],
  [
    '--agent naming no agent',
    ['hook', '--agent', 'vim'],
    { hook_event_name: 'PreToolUse' },
    /^fettle: --agent vim names no agent fettle knows \(claude, codex, gemini, cursor\); this tool call was not protected by fettle\.\n$/,
  ],
];
for (const [label, args, input, says] of UNKNOWN)
  test(`fettle hook, ${label}: exit 1, one line, nothing recorded`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const r = runCli(args, { cwd: repo.dir, env: repo.env, input: JSON.stringify(input) });
    assert.deepEqual([r.code, r.stdout], [1, ''], r.stderr);
    assert.match(r.stderr, says);
    assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '');
  });
