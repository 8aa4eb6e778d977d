// hook/supervise.ts: the line a hook whose child gave no answer blocks with, worded by the event its input names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLimited, sniffEvent, unfinished } from '../../src/hook/supervise';

const events: [string, string | undefined][] = [
  ['{"session_id":"s","hook_event_name":"PreToolUse","tool_input":{}}', 'PreToolUse'],
  ['{"hook_event_name" : "PostToolUse"}', 'PostToolUse'],
  ['{"tool_input":{"content":"\\"hook_event_name\\":\\"PostToolUse\\""},"hook_event_name":"PreToolUse"}', 'PreToolUse'],
  ['{"x\\"hook_event_name":"PostToolUse","hook_event_name":"PreToolUse"}', undefined],
  ['{"tool_input":{}}', undefined],
  ['{"hook_event_name":42}', undefined],
];
for (const [input, event] of events)
  test(`sniffEvent(${input.slice(0, 60)}) = ${event}`, () => assert.equal(sniffEvent(Buffer.from(input)), event));

const lines: [string, RegExp][] = [
  [
    '{"hook_event_name":"PreToolUse"}',
    /^fettle blocked this tool call: its hook died on a 0 MB input before it could record anything; nothing was written\.\n$/,
  ],
  ['{"hook_event_name":"BeforeTool"}', /^fettle blocked this tool call: .*nothing was written\.\n$/],
  ['{}', /^fettle blocked this tool call: .*nothing was written\.\n$/],
  [
    '{"hook_event_name":"PostToolUse"}',
    /^fettle could not record this PostToolUse: its hook died on a 0 MB input; nothing was recorded\.\n$/,
  ],
];
for (const [input, line] of lines)
  test(`a child that died on ${input}: exit 2, one line`, () => {
    const outcome = unfinished(Buffer.from(input), 'died');
    assert.equal(outcome.exitCode, 2);
    assert.match(outcome.stderr ?? '', line);
  });

const LIMITS = (as: string, data = 'unlimited') =>
  `Limit                     Soft Limit           Hard Limit           Units\nMax data size             ${data}            unlimited            bytes\nMax address space         ${as}            unlimited            bytes\n`;
const limited: [string, string, boolean][] = [
  ['no limit', LIMITS('unlimited'), false],
  ['ulimit -v', LIMITS('1024000000'), true],
  ['ulimit -d', LIMITS('unlimited', '1024000000'), true],
  ['no /proc', '', false],
];
for (const [name, text, expected] of limited)
  test(`memoryLimited: ${name}`, () => assert.equal(memoryLimited(text), expected));
