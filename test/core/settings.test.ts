// Pure tests of the settings editor: which handlers are fettle's, what install adds, what uninstall takes out
// (setup/settings-text.ts writes it into the file's text). Objects are compared through JSON.stringify so key
// order counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addFettleHooks,
  BASH_MATCHER,
  HOOK_EVENTS,
  isFettleHandler,
  MATCHER,
  READ_MATCHER,
  removeFettleHooks,
  SettingsShapeError,
  STATUS_MESSAGE,
} from '../../src/core/settings';
import type { Json } from '../../src/core/json';
import { WRITE_TOOLS } from '../../src/core/tool-call';

type Obj = { [key: string]: Json };

const CMD = "'/opt/node bin/node' '/opt/fettle/dist/cli.js' hook";
/** The handler and group install writes. */
const H = (command = CMD): Obj => ({ type: 'command', command, timeout: 60, statusMessage: STATUS_MESSAGE });
const OURS = (command = CMD): Obj => ({ matcher: MATCHER, hooks: [H(command)] });
const OURS_READ = (command = CMD): Obj => ({ matcher: READ_MATCHER, hooks: [H(command)] });
/** The groups on Bash: PreToolUse blocking, the other two in the background. */
const BASH = (command = CMD): Obj => ({ matcher: BASH_MATCHER, hooks: [H(command)] });
const BASH_POST = (command = CMD): Obj => ({ matcher: BASH_MATCHER, hooks: [{ ...H(command), async: true }] });
/** The group of PostToolUse and PostToolUseFailure: the same handler, run in the background. */
const POST = (command = CMD): Obj => ({ matcher: MATCHER, hooks: [{ ...H(command), async: true }] });
/** The group of Stop, SessionEnd and UserPromptSubmit: no matcher, not in the background. */
const END = (command = CMD): Obj => ({ hooks: [H(command)] });
/** Foreign handlers and groups. */
const X: Obj = { type: 'command', command: 'prettier --write "$CLAUDE_PROJECT_DIR"' };
const Y: Obj = { type: 'command', command: '~/bin/lint.sh', timeout: 30 };
const gX: Obj = { matcher: 'Write', hooks: [X] };
const gY: Obj = { matcher: 'Edit|Write', hooks: [Y] };
/** An older fettle install: recognised by its command alone. */
const OLD: Obj = { type: 'command', command: "'/old/node' '/old/fettle/dist/cli.js' hook" };
const OLD_BY_STATUS: Obj = { type: 'command', command: '/somewhere/else/cli.js hook', statusMessage: STATUS_MESSAGE };

const same = (actual: unknown, expected: unknown) => assert.equal(JSON.stringify(actual), JSON.stringify(expected));

test('the constants: PreToolUse, PostToolUse and PostToolUseFailure on an exact list of the write tools, Write included', () => {
  assert.deepEqual([...HOOK_EVENTS], ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
  // Only letters and "|": Claude Code reads that as an exact list of names, not as an unanchored regexp.
  assert.match(MATCHER, /^[A-Za-z]+(\|[A-Za-z]+)*$/);
  assert.deepEqual(MATCHER.split('|'), [...WRITE_TOOLS]);
  assert.ok(MATCHER.split('|').includes('Write'));
  assert.equal(READ_MATCHER, 'Read');
  assert.ok(STATUS_MESSAGE.startsWith('fettle'));
});

// ---------------------------------------------------------------- isFettleHandler: [handler, expected]
const handlers: [Json, boolean][] = [
  [H(), true],
  [{ type: 'command', command: 'anything at all', statusMessage: STATUS_MESSAGE }, true],
  [{ type: 'command', command: 'fettle hook' }, true],
  [{ type: 'command', command: 'fettle hook  ' }, true],
  [{ type: 'command', command: 'npx fettle hook' }, true],
  [{ type: 'command', command: '"fettle" hook' }, true],
  [{ type: 'command', command: '/usr/local/bin/fettle hook' }, true],
  [{ type: 'command', command: "'/old/node' '/old/fettle/dist/cli.js' hook" }, true],
  [{ type: 'command', command: '/usr/bin/node /usr/lib/node_modules/fettle/dist/cli.js hook' }, true],
  [{ type: 'command', command: `'/usr/bin/node' '/home/a b/fettle/dist/cli.js' hook` }, true],
  [{ type: 'command', command: 'node "/x/fettle/dist/cli.js" hook' }, true],
  [{ type: 'command', command: 'fettle status' }, false],
  [{ type: 'command', command: 'fettle' }, false],
  [{ type: 'command', command: 'my-fettle hook' }, false],
  [{ type: 'command', command: 'notfettle hook' }, false],
  [{ type: 'command', command: 'node /opt/fettler/dist/cli.js hook' }, false],
  [{ type: 'command', command: 'node /opt/fettle/dist/other.js hook' }, false],
  [{ type: 'command', command: 'prettier --write' }, false],
  [{ type: 'command', command: 'fettle hook', statusMessage: 'x' }, true],
  [{ type: 'command', command: 'echo', statusMessage: 'fettle: something else' }, false],
  [{ type: 'command', command: 42 }, false],
  [{ type: 'http', url: 'http://localhost/fettle/hook' }, false],
  [X, false],
  [Y, false],
  ['fettle hook', false],
  [null, false],
  [[H()], false],
  [STATUS_MESSAGE, false],
];
for (const [handler, expected] of handlers) {
  test(`isFettleHandler(${JSON.stringify(handler)}) = ${expected}`, () =>
    assert.equal(isFettleHandler(handler), expected));
}

// ---------------------------------------------------------------- removeFettleHooks: [name, input, expected, todo?]
const removals: [string, Obj, Obj, string?][] = [
  ['empty settings', {}, {}],
  ['no hooks key', { model: 'opus', env: { A: '1' } }, { model: 'opus', env: { A: '1' } }],
  ['only fettle: hooks key removed', { hooks: { PreToolUse: [OURS()], PostToolUse: [OURS()] } }, {}],
  ['other keys keep their order', { a: 1, hooks: { PreToolUse: [OURS()] }, b: 2 }, { a: 1, b: 2 }],
  [
    'foreign groups around ours kept in order',
    { hooks: { PreToolUse: [gX, OURS(), gY] } },
    { hooks: { PreToolUse: [gX, gY] } },
  ],
  [
    'mixed group: only our handler removed',
    { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [X, H(), Y] }] } },
    { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [X, Y] }] } },
  ],
  [
    'mixed group keeps its other fields',
    { hooks: { PostToolUse: [{ matcher: 'Write', if: 'Write(src/**)', hooks: [OLD, X] }] } },
    { hooks: { PostToolUse: [{ matcher: 'Write', if: 'Write(src/**)', hooks: [X] }] } },
  ],
  [
    'older fettle handlers (command or status) removed',
    {
      hooks: {
        PreToolUse: [
          { matcher: 'Write', hooks: [OLD] },
          { matcher: 'Write', hooks: [OLD_BY_STATUS] },
        ],
      },
    },
    {},
  ],
  [
    'other events untouched, emptied event removed',
    { hooks: { Stop: [gX], PreToolUse: [OURS()], SessionStart: [gY] } },
    { hooks: { Stop: [gX], SessionStart: [gY] } },
  ],
  [
    'non-array event value left alone (string)',
    { hooks: { PreToolUse: 'weird', PostToolUse: [OURS()] } },
    { hooks: { PreToolUse: 'weird' } },
  ],
  [
    'non-array event value left alone (object)',
    { hooks: { PreToolUse: { matcher: 'Write', hooks: [H()] } } },
    { hooks: { PreToolUse: { matcher: 'Write', hooks: [H()] } } },
  ],
  [
    'non-object groups and groups without a hooks array left alone',
    { hooks: { PreToolUse: [42, null, { matcher: 'Write' }, { matcher: 'Write', hooks: 'x' }, OURS()] } },
    { hooks: { PreToolUse: [42, null, { matcher: 'Write' }, { matcher: 'Write', hooks: 'x' }] } },
  ],
  [
    'foreign group with an empty hooks array kept',
    { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [] }, OURS()] } },
    { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [] }] } },
  ],
  [
    "an event that was already empty is not fettle's to remove",
    { model: 'x', hooks: { PreToolUse: [] } },
    { model: 'x', hooks: { PreToolUse: [] } },
  ],
  [
    "a hooks object that was already empty is not fettle's to remove",
    { model: 'x', hooks: {} },
    { model: 'x', hooks: {} },
  ],
];
for (const [name, input, expected, todo] of removals) {
  test(`removeFettleHooks: ${name}`, { todo }, () => {
    const before = JSON.stringify(input);
    same(removeFettleHooks(input), expected);
    assert.equal(JSON.stringify(input), before, 'the input is not mutated');
  });
}

test('removeFettleHooks refuses a "hooks" that is not an object', () => {
  for (const hooks of [[], 'x', 1, null, true] as Json[])
    assert.throws(() => removeFettleHooks({ hooks }), SettingsShapeError, JSON.stringify(hooks));
});

// ---------------------------------------------------------------- addFettleHooks: [name, input, expected, todo?]
const additions: [string, Obj, Obj][] = [
  [
    'empty settings',
    {},
    {
      hooks: {
        PreToolUse: [OURS(), BASH()],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    'hooks appended after existing keys',
    { model: 'opus', env: { A: 'é' } },
    {
      model: 'opus',
      env: { A: 'é' },
      hooks: {
        PreToolUse: [OURS(), BASH()],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    'existing hooks key keeps its place; ours go after foreign groups',
    { hooks: { PreToolUse: [gX] }, model: 'opus' },
    {
      hooks: {
        PreToolUse: [gX, OURS(), BASH()],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
      model: 'opus',
    },
  ],
  [
    'other events kept first, ours appended',
    { hooks: { Stop: [gX] } },
    {
      hooks: {
        Stop: [gX, END()],
        PreToolUse: [OURS(), BASH()],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    'events keep their order',
    { hooks: { PostToolUse: [gY], PreToolUse: [gX] } },
    {
      hooks: {
        PostToolUse: [gY, POST(), BASH_POST()],
        PreToolUse: [gX, OURS(), BASH()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    'an older fettle handler is replaced, not duplicated',
    {
      hooks: {
        PreToolUse: [{ matcher: 'Write', hooks: [OLD] }],
        PostToolUse: [{ matcher: 'Write', hooks: [OLD_BY_STATUS] }],
      },
    },
    {
      hooks: {
        PreToolUse: [OURS(), BASH()],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    'an older handler in a mixed group: the foreign handler stays, ours takes that place',
    { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [X, OLD] }] } },
    {
      hooks: {
        PreToolUse: [OURS(), BASH(), { matcher: 'Write', hooks: [X] }],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    're-install keeps our group where it was among foreign groups',
    { hooks: { PreToolUse: [gX, OURS('old'), gY], PostToolUse: [POST('old'), gY] } },
    {
      hooks: {
        PreToolUse: [gX, OURS(), BASH(), gY],
        PostToolUse: [POST(), BASH_POST(), gY],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
  [
    'a non-array value of another event is left alone',
    { hooks: { Notification: 'weird', PreToolUse: [] } },
    {
      hooks: {
        Notification: 'weird',
        PreToolUse: [OURS(), BASH()],
        PostToolUse: [POST(), BASH_POST()],
        PostToolUseFailure: [POST(), BASH_POST()],
        Stop: [END()],
        SessionEnd: [END()],
        UserPromptSubmit: [END()],
      },
    },
  ],
];
for (const [name, input, expected] of additions) {
  test(`addFettleHooks: ${name}`, () => {
    const before = JSON.stringify(input);
    same(addFettleHooks(input, CMD), expected);
    assert.equal(JSON.stringify(input), before, 'the input is not mutated');
  });
}

test('addFettleHooks is idempotent and removeFettleHooks undoes it exactly', () => {
  const inputs: Obj[] = [
    {},
    { model: 'x' },
    { hooks: { PreToolUse: [gX], Stop: [gY] }, z: [1, 2] },
    { a: { b: null }, hooks: { PostToolUse: [gY] } },
  ];
  for (const input of inputs) {
    const once = addFettleHooks(input, CMD);
    same(addFettleHooks(once, CMD), once);
    same(removeFettleHooks(once), input);
  }
});

// A Read's PostToolUse waits (what it returned is kept before the model can read again); PreCompact, and
// SessionStart after /clear or a compaction, forget it.
test('addFettleHooks with read: Read groups before and after (not in the background), PreCompact, SessionStart; removed like the others', () => {
  const input: Obj = { model: 'x', hooks: { PreToolUse: [gX] } };
  const withRead = addFettleHooks(input, CMD, { read: true });
  same(withRead, {
    model: 'x',
    hooks: {
      PreToolUse: [gX, OURS(), BASH(), OURS_READ()],
      PostToolUse: [POST(), BASH_POST(), OURS_READ()],
      PostToolUseFailure: [POST(), BASH_POST()],
      Stop: [END()],
      SessionEnd: [END()],
      UserPromptSubmit: [END()],
      PreCompact: [END()],
      SessionStart: [{ matcher: 'clear|compact', hooks: [H()] }],
    },
  });
  same(addFettleHooks(withRead, CMD, { read: true }), withRead);
  same(addFettleHooks(withRead, CMD), addFettleHooks(input, CMD)); // the options describe the whole install
  same(removeFettleHooks(withRead), input);
});

test('addFettleHooks with a new command replaces the old one', () => {
  const next = addFettleHooks(addFettleHooks({ hooks: { PreToolUse: [gX] } }, CMD), 'fettle hook');
  same(next, {
    hooks: {
      PreToolUse: [gX, OURS('fettle hook'), BASH('fettle hook')],
      PostToolUse: [POST('fettle hook'), BASH_POST('fettle hook')],
      PostToolUseFailure: [POST('fettle hook'), BASH_POST('fettle hook')],
      Stop: [END('fettle hook')],
      SessionEnd: [END('fettle hook')],
      UserPromptSubmit: [END('fettle hook')],
    },
  });
});

test('addFettleHooks is idempotent when a foreign group was added after ours', () => {
  const installed = addFettleHooks({}, CMD) as { hooks: Obj };
  const edited: Obj = { hooks: { ...installed.hooks, PreToolUse: [...(installed.hooks.PreToolUse as Json[]), gX] } };
  same(addFettleHooks(edited, CMD), edited);
});

test('addFettleHooks refuses shapes it cannot extend', () => {
  for (const hooks of [[], 'x', null] as Json[])
    assert.throws(() => addFettleHooks({ hooks }, CMD), SettingsShapeError, JSON.stringify(hooks));
  for (const value of ['x', { matcher: 'Write' }, null, 1] as Json[]) {
    assert.throws(() => addFettleHooks({ hooks: { PreToolUse: value } }, CMD), /"hooks\.PreToolUse" is not an array/);
    assert.throws(() => addFettleHooks({ hooks: { PostToolUse: value } }, CMD), /"hooks\.PostToolUse" is not an array/);
  }
});

test('addFettleHooks without bash (install --no-bash): no group on Bash; a later plain install adds them back', () => {
  const input: Obj = { hooks: { PreToolUse: [gX] } };
  const without = addFettleHooks(input, CMD, { bash: false });
  same(without, {
    hooks: {
      PreToolUse: [gX, OURS()],
      PostToolUse: [POST()],
      PostToolUseFailure: [POST()],
      Stop: [END()],
      SessionEnd: [END()],
      UserPromptSubmit: [END()],
    },
  });
  same(addFettleHooks(without, CMD), addFettleHooks(input, CMD));
  same(removeFettleHooks(addFettleHooks(input, CMD)), input);
});
