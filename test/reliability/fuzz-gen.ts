// A small seeded generator of hostile hook inputs: valid payloads of every tool and event, then mutated
// (truncated, retyped, fields dropped or added, odd paths and contents), plus other agents' shapes.
// "$REPO" stands for the repository under test and is replaced when a case runs.
import type { Rng } from './harness';

export interface FuzzCase {
  why: string;
  stdin?: string;
  stdinBase64?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const EVENTS = ['PreToolUse', 'PostToolUse'];
const TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Read'];
const MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', 'weird'];

const PATHS = [
  '$REPO/a.txt',
  '$REPO/new.txt',
  '$REPO/sub/dir/new.txt',
  'a.txt',
  './a.txt',
  '$REPO/../outside.txt',
  '$REPO/sub/../../x.txt',
  '$REPO/.git/config',
  '$REPO/.GIT/config',
  '$REPO/.git/hooks/pre-commit',
  '$REPO',
  '$REPO/',
  '/dev/null',
  '/dev/zero',
  '$REPO/a.txt\u0000.png',
  '$REPO/new\nline.txt',
  '$REPO/-rf',
  '$REPO/ünï cödé ✓.txt',
  '$REPO/\ud800lone.txt',
  '',
  `$REPO/${'d/'.repeat(60)}deep.txt`,
  `$REPO/${'x'.repeat(300)}.txt`,
  '$REPO/a.txt/below',
  '~/a.txt',
  'C:\\a.txt',
  '$REPO/nb.ipynb',
];

const CONTENTS = [
  '',
  'hello\n',
  'line\r\nline\r\n',
  'no newline',
  '\u0000\u0001binary',
  '\ud800\udc00 pair and lone \udfff',
  'é'.repeat(5000),
  'x\n'.repeat(3000),
];

const randomJson = (rng: Rng, depth = 0): Json => {
  switch (rng.int(0, depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER]);
    case 3:
      return rng.pick(['', 'x', '\u0000', '\ud800', 'a'.repeat(rng.int(0, 2000))]);
    case 4:
      return rng.pick(['Write', 'PreToolUse', '$REPO/a.txt']);
    case 5:
      return Array.from({ length: rng.int(0, 3) }, () => randomJson(rng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: rng.int(0, 3) }, (_, i) => [`k${i}`, randomJson(rng, depth + 1)]));
  }
};

const toolInput = (rng: Rng, tool: string): Record<string, Json> => {
  const file = rng.pick(PATHS);
  const content = rng.pick(CONTENTS);
  switch (tool) {
    case 'Write':
      return { file_path: file, content };
    case 'Edit':
      return {
        file_path: file,
        old_string: rng.pick(['line 1', '', 'absent', content]),
        new_string: content,
        replace_all: rng.chance(0.3),
      };
    case 'MultiEdit':
      return {
        file_path: file,
        edits: Array.from({ length: rng.int(0, 3) }, () => ({
          old_string: rng.pick(['line 1', '', 'x']),
          new_string: content,
        })),
      };
    case 'NotebookEdit':
      return {
        notebook_path: file,
        new_source: content,
        cell_id: rng.pick(['c1', '', 'nope']),
        edit_mode: rng.pick(['replace', 'insert', 'delete', 'bogus']),
      };
    default:
      return { file_path: file, offset: rng.pick([0, 1, -5, 1e9]), limit: rng.pick([1, 2000, 0]) };
  }
};

const valid = (rng: Rng): Record<string, Json> => {
  const tool = rng.pick(TOOLS);
  return {
    session_id: `s${rng.int(0, 9)}`,
    transcript_path: '/dev/null',
    cwd: rng.pick(['$REPO', '$REPO/sub', '/', '/nonexistent/dir']),
    permission_mode: rng.pick(MODES),
    hook_event_name: rng.pick(EVENTS),
    tool_name: tool,
    tool_input: toolInput(rng, tool),
    tool_use_id: `toolu_${rng.int(0, 99999)}`,
  };
};

/** Other agents' hook shapes, which fettle must let pass untouched. */
const foreign = (rng: Rng): Json =>
  rng.pick<Json>([
    {
      hook_event_name: 'afterFileEdit',
      file_path: '$REPO/a.txt',
      edits: [{ old_string: 'a', new_string: 'b' }],
      conversation_id: 'c',
      generation_id: 'g',
    },
    { hook_event_name: 'beforeShellExecution', command: 'rm -rf /', cwd: '$REPO' },
    {
      hook_event_name: 'preToolUse',
      tool_name: 'edit_file',
      tool_input: { target_file: '$REPO/a.txt', code_edit: 'x' },
    },
    { type: 'agent-turn-complete', 'turn-id': '1', 'input-messages': ['hi'], 'last-assistant-message': 'ok' },
    {
      hook_event_name: 'PreToolUse',
      tool_name: 'apply_patch',
      tool_input: { command: ['apply_patch', '*** Begin Patch\n*** End Patch'] },
    },
    {
      hook_event_name: 'PreToolUse',
      tool_name: 'shell',
      tool_input: { command: ['bash', '-lc', 'echo hi > $REPO/a.txt'] },
    },
    { hook_event_name: 'Stop', stop_hook_active: false },
    { hook_event_name: 'UserPromptSubmit', prompt: 'write a.txt' },
  ]);

const mutate = (rng: Rng, p: Record<string, Json>): [string, Json] => {
  const input = p.tool_input as Record<string, Json>;
  const keys = Object.keys(p);
  switch (rng.int(0, 7)) {
    case 0: {
      const k = rng.pick(keys);
      return [`${k} retyped`, { ...p, [k]: randomJson(rng) }];
    }
    case 1: {
      const k = rng.pick(keys);
      const { [k]: _, ...rest } = p;
      return [`${k} missing`, rest];
    }
    case 2: {
      const k = rng.pick(Object.keys(input));
      return [`tool_input.${k} retyped`, { ...p, tool_input: { ...input, [k]: randomJson(rng) } }];
    }
    case 3: {
      const k = rng.pick(Object.keys(input));
      const { [k]: _, ...rest } = input;
      return [`tool_input.${k} missing`, { ...p, tool_input: rest }];
    }
    case 4:
      return ['unknown fields', { ...p, extra: randomJson(rng), tool_input: { ...input, surprise: randomJson(rng) } }];
    case 5:
      return [
        'unknown tool',
        { ...p, tool_name: rng.pick(['Bash', 'write', 'WRITE', 'Write ', 'mcp__fs__write', '', 'Task']) },
      ];
    case 6:
      return [
        'unknown event',
        { ...p, hook_event_name: rng.pick(['preToolUse', 'PreToolUse ', 'SessionStart', 'Notification', '']) },
      ];
    default:
      return ['valid', p];
  }
};

export const generate = (rng: Rng): FuzzCase => {
  if (rng.chance(0.1)) return { why: "another agent's shape", stdin: JSON.stringify(foreign(rng)) };
  const [why, payload] = mutate(rng, valid(rng));
  const text = JSON.stringify(payload);
  switch (rng.int(0, 9)) {
    case 0:
      return { why: `${why}, truncated`, stdin: text.slice(0, rng.int(0, text.length - 1)) };
    case 1:
      return { why: `${why}, with trailing garbage`, stdin: `${text}${rng.pick(['}', ' x', '\n{}', '\u0000'])}` };
    case 2:
      return {
        why: `${why}, not UTF-8`,
        stdinBase64: Buffer.concat([
          Buffer.from(text.slice(0, -2)),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from(text.slice(-2)),
        ]).toString('base64'),
      };
    default:
      return { why, stdin: text };
  }
};
