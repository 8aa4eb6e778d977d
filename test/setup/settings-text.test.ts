// The settings file edited as text: read with comments, fettle's groups put in and taken out so that every other
// byte stays (the CLI round trips are in test/commands/install.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addFettleHooks, SettingsShapeError } from '../../src/core/settings';
import type { Json } from '../../src/core/json';
import { parseSettingsText, withFettle, withoutFettle } from '../../src/setup/settings-text';

type Obj = { [key: string]: Json };
const CMD = "'/usr/bin/node' '/opt/fettle/dist/cli.js' hook";

// [text, value | error]
const parses: [string, Obj | typeof SettingsShapeError | typeof SyntaxError][] = [
  ['{}', {}],
  ['{"a":1}', { a: 1 }],
  ['  {\n  "a": "é"\n}\n\n', { a: 'é' }],
  ['{"hooks":"x"}', { hooks: 'x' }], // the shape of "hooks" is checked when it is edited
  ['{"a":1} // comment', { a: 1 }],
  ['{\n  /* a */ "a": [1, /* b */ 2]\n}', { a: [1, 2] }],
  ['[]', SettingsShapeError],
  ['null', SettingsShapeError],
  ['"{}"', SettingsShapeError],
  ['1', SettingsShapeError],
  ['', SyntaxError],
  ['{', SyntaxError],
  ['{"a":1,}', SyntaxError],
  ["{'a':1}", SyntaxError],
];
for (const [text, expected] of parses) {
  test(`parseSettingsText(${JSON.stringify(text)})`, () => {
    if (typeof expected === 'function') assert.throws(() => parseSettingsText(text), expected);
    else assert.equal(JSON.stringify(parseSettingsText(text).value), JSON.stringify(expected));
  });
}

const install = (text: string): string => withFettle(text, addFettleHooks(parseSettingsText(text).value, CMD));

// [name, original]: install puts fettle's groups in, uninstall gives back exactly the original. Not byte-exact, and
// so not here: an object or array that held only whitespace (`{\n}` comes back as `{}`), and an event whose array
// was empty before fettle's group went in (it goes with the group).
const files: [string, string][] = [
  ['{}', '{}'],
  ['{} and a newline', '{}\n'],
  ['compact', '{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say"}]}]}}'],
  [
    'a comment between two foreign groups',
    '{\n  "hooks": {\n    "Stop": [\n      {"hooks": []}, // one\n      {"hooks": []}\n    ]\n  }\n}\n',
  ],
  [
    'tabs and CRLF',
    '{\r\n\t"hooks": {\r\n\t\t"PreToolUse": [\r\n\t\t\t{ "matcher": "Bash", "hooks": [] }\r\n\t\t]\r\n\t}\r\n}\r\n',
  ],
];
for (const [name, original] of files) {
  test(`install then uninstall gives back every byte: ${name}`, () => {
    const installed = install(original);
    assert.notEqual(installed, original);
    assert.equal(
      JSON.stringify(parseSettingsText(installed).value),
      JSON.stringify(addFettleHooks(parseSettingsText(original).value, CMD)),
      'the same settings core/settings.ts computes',
    );
    assert.equal(install(installed), installed, 'installing again changes nothing');
    assert.equal(withoutFettle(installed), original);
  });
}

test("a handler of fettle's inside a foreign group goes alone; the group and its comment stay", () => {
  const text = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say"} /* keep */,{"type":"command","command":"${CMD.replace(/'/g, "'")}"}]}]}}`;
  assert.equal(withoutFettle(text), '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say"} /* keep */]}]}}');
});
