// parsePayload for the Write tool: what Claude Code sends becomes a call; anything fettle does not handle is
// ignored (exit 0, no opinion); a Write payload fettle cannot read is invalid (reported, never a crash).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePayload } from '../../src/hook/payload';

const BASE = {
  session_id: 'sess-1',
  transcript_path: '/dev/null',
  cwd: '/home/user/project',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: '/home/user/project/a.txt', content: 'hello\n' },
  tool_use_id: 'toolu_01',
};
const json = (over: Record<string, unknown> = {}): string => JSON.stringify({ ...BASE, ...over });
const input = (over: Record<string, unknown>): string => json({ tool_input: { ...BASE.tool_input, ...over } });

/** The stdin as the hook reads it when `@@` in `text` was a byte that is not UTF-8. */
const notUtf8 = (text: string): string => {
  const [a = '', b = ''] = text.split('@@');
  return Buffer.concat([Buffer.from(a), Buffer.from([0xff]), Buffer.from(b)]).toString('utf8');
};

// [label, raw stdin, expected kind, what `why` names (ignore and invalid)]
const cases: [string, string, 'call' | 'bash' | 'ignore' | 'invalid', RegExp?][] = [
  ['a full PreToolUse Write', json(), 'call'],
  [
    'a PostToolUse Write with tool_response',
    json({ hook_event_name: 'PostToolUse', tool_response: { success: true } }),
    'call',
  ],
  [
    'extra fields Claude Code may add',
    json({ effort: { level: 'high' }, agent_id: 'a1', prompt_id: 'p', duration_ms: 3 }),
    'call',
  ],
  [
    'only the required fields',
    JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: BASE.tool_input }),
    'call',
  ],
  ['empty content (truncating a file)', input({ content: '' }), 'call'],
  ['content with NUL and CRLF', input({ content: 'a\r\n\0b' }), 'call'],
  ['a relative file_path (resolved against cwd later)', input({ file_path: 'src/a.ts' }), 'call'],
  ['empty stdin', '', 'invalid', /empty/],
  ['whitespace only', ' \n\t ', 'invalid', /empty/],
  ['truncated JSON', json().slice(0, 80), 'invalid', /not (valid )?JSON/],
  ['a JSON array', `[${json()}]`, 'invalid', /not a JSON object/],
  ['JSON null', 'null', 'invalid', /not a JSON object/],
  ['a JSON string', '"PreToolUse"', 'invalid', /not a JSON object/],
  ['a JSON number', '42', 'invalid', /not a JSON object/],
  ['no hook_event_name', json({ hook_event_name: undefined }), 'ignore', /event/],
  ['an unknown event', json({ hook_event_name: 'PermissionRequest' }), 'ignore', /PermissionRequest/],
  [
    'PostToolUseFailure (a write tool that failed)',
    json({ hook_event_name: 'PostToolUseFailure', error: 'boom' }),
    'call',
  ],
  [
    'PostToolUseFailure of a tool fettle does not handle',
    json({ hook_event_name: 'PostToolUseFailure', tool_name: 'Glob', tool_input: { pattern: 'x' } }),
    'ignore',
    /Glob/,
  ],
  ['an event name in another case', json({ hook_event_name: 'pretooluse' }), 'ignore', /pretooluse/],
  ['no tool_name', json({ tool_name: undefined }), 'ignore', /tool/],
  ['tool Bash (what it changes is recorded)', json({ tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }), 'bash'],
  [
    'Bash with every field Claude Code sends',
    json({ tool_name: 'Bash', tool_input: { command: 'ls', description: 'd', timeout: 5, run_in_background: false } }),
    'bash',
  ],
  ['Bash without tool_input', json({ tool_name: 'Bash', tool_input: undefined }), 'invalid', /tool_input/],
  ['Bash without a command', json({ tool_name: 'Bash', tool_input: { description: 'd' } }), 'invalid', /command/],
  ['Bash command not a string', json({ tool_name: 'Bash', tool_input: { command: ['ls'] } }), 'invalid', /command/],
  [
    'Bash command over a mebibyte',
    json({ tool_name: 'Bash', tool_input: { command: `echo ${'x'.repeat(1024 * 1024)}` } }),
    'invalid',
    /characters long/,
  ],
  [
    'Bash command with a lone surrogate',
    json({ tool_name: 'Bash', tool_input: { command: 'ls \ud800' } }),
    'invalid',
    /UTF-8/,
  ],
  [
    'Bash command whose bytes were not UTF-8 (read as U+FFFD)',
    notUtf8(json({ tool_name: 'Bash', tool_input: { command: 'ls @@' } })),
    'invalid',
    /UTF-8/,
  ],
  ['an MCP write tool', json({ tool_name: 'mcp__fs__write_file' }), 'ignore', /mcp__fs__write_file/],
  ['tool name in another case', json({ tool_name: 'write' }), 'ignore', /write/],
  ['tool_name not a string', json({ tool_name: ['Write'] }), 'invalid', /tool_name is an array/],
  [
    'tool_name an object that cannot print',
    json({ tool_name: { toString: 1 } }),
    'invalid',
    /tool_name is a JSON object/,
  ],
  ['hook_event_name a number', json({ hook_event_name: 7 }), 'invalid', /hook_event_name is a number/],
  ['hook_event_name an object that cannot print', json({ hook_event_name: { toString: 1 } }), 'invalid', /JSON object/],
  ['no tool_input', json({ tool_input: undefined }), 'invalid', /tool_input/],
  ['tool_input null', json({ tool_input: null }), 'invalid', /tool_input/],
  ['tool_input a string', json({ tool_input: '{"file_path":"/a"}' }), 'invalid', /tool_input/],
  ['tool_input an array', json({ tool_input: [BASE.tool_input] }), 'invalid', /tool_input|file_path/],
  ['no file_path', input({ file_path: undefined }), 'invalid', /file_path/],
  ['empty file_path', input({ file_path: '' }), 'invalid', /file_path/],
  ['file_path a number', input({ file_path: 7 }), 'invalid', /file_path/],
  ['file_path with NUL', input({ file_path: '/home/user/project/a\0.txt' }), 'invalid', /file_path/],
  ['no content', input({ content: undefined }), 'invalid', /content/],
  ['content null', input({ content: null }), 'invalid', /content/],
  ['content a number', input({ content: 42 }), 'invalid', /content/],
  ['content an array of lines', input({ content: ['a', 'b'] }), 'invalid', /content/],
];

for (const [label, raw, kind, names] of cases) {
  test(`parsePayload: ${label} -> ${kind}`, () => {
    const parsed = parsePayload(raw);
    assert.equal(parsed.kind, kind, JSON.stringify(parsed));
    if (parsed.kind === 'call') {
      assert.equal(parsed.payload.call.tool, 'Write');
      return;
    }
    if (parsed.kind === 'bash') {
      assert.equal(typeof parsed.bash.command, 'string');
      return;
    }
    assert.match(parsed.why, names ?? /./);
    assert.doesNotMatch(parsed.why, /\n/, 'the reason fits on the one stderr line Claude Code shows');
  });
}

test('parsePayload: a Write call carries its fields exactly', () => {
  const content = 'naïve ✓\r\n\0tail';
  const parsed = parsePayload(input({ content }));
  assert.ok(parsed.kind === 'call');
  const { call, ...rest } = parsed.payload;
  assert.deepEqual(call, { tool: 'Write', filePath: '/home/user/project/a.txt', content });
  assert.deepEqual(rest, {
    event: 'PreToolUse',
    cwd: '/home/user/project',
    permissionMode: 'default',
    sessionId: 'sess-1',
    toolUseId: 'toolu_01',
  });
});

test('parsePayload: optional fields of the wrong type are dropped, not trusted', () => {
  const parsed = parsePayload(json({ cwd: 5, permission_mode: null, session_id: {}, tool_use_id: ['x'] }));
  assert.ok(parsed.kind === 'call');
  const { cwd, permissionMode, sessionId, toolUseId } = parsed.payload;
  assert.deepEqual([cwd, permissionMode, sessionId, toolUseId], [undefined, undefined, undefined, undefined]);
});

test('parsePayload: invalid JSON spread over lines is still reported on one line', () => {
  const parsed = parsePayload(JSON.stringify(BASE, null, 2).replace('"Write"', 'Write'));
  assert.equal(parsed.kind, 'invalid');
  assert.doesNotMatch(parsed.kind === 'invalid' ? parsed.why : '', /\n/);
});

test('parsePayload: empty stdin is reported in plain words', () => {
  const parsed = parsePayload('');
  assert.ok(parsed.kind === 'invalid');
  assert.doesNotMatch(parsed.why, /is stdin was/);
});

test('parsePayload keeps the error of a PostToolUseFailure', () => {
  const parsed = parsePayload(json({ hook_event_name: 'PostToolUseFailure', error: 'String to replace not found' }));
  assert.equal(parsed.kind === 'call' && parsed.payload.error, 'String to replace not found');
});
