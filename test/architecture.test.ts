// The layer rule of docs/ARCHITECTURE.md, checked over the real source: each import goes to a layer the
// importing layer may use, no import cycle exists (type imports included), no function takes more than five
// positional parameters, and none is longer than a screen (60 lines) but the few named below. A violation fails CI
// like any other test.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = join(__dirname, '..', 'src');

type Layer =
  | 'entry'
  | 'hook'
  | 'commands'
  | 'mcp'
  | 'web'
  | 'render'
  | 'setup'
  | 'protocol'
  | 'store'
  | 'io'
  | 'config'
  | 'core';

/**
 * Downwards only. Edges (the hook, the commands, the MCP server) reach the store and io through the protocol, except
 * the process edge's own io.
 */
const MAY_USE: Record<Layer, Layer[]> = {
  entry: ['entry', 'hook', 'commands', 'mcp', 'web'],
  hook: ['hook', 'render', 'protocol', 'config', 'core'],
  commands: ['commands', 'render', 'setup', 'protocol', 'config', 'core'],
  mcp: ['mcp', 'render', 'protocol', 'config', 'core'],
  // the review page's server, and the page itself (built for the browser: it imports no protocol, only types)
  web: ['web', 'render', 'protocol', 'config', 'core'],
  // what an outcome says, for every edge: it reads the protocol's types (a type import), never calls it
  render: ['render', 'config', 'core'],
  setup: ['setup', 'protocol', 'store', 'io', 'config', 'core'],
  protocol: ['protocol', 'store', 'io', 'config', 'core'],
  store: ['store', 'io', 'config', 'core'],
  io: ['io', 'config', 'core'],
  config: ['config', 'core'],
  core: ['core'],
};
const RANK: Record<Layer, number> = {
  entry: 7,
  hook: 6,
  commands: 6,
  mcp: 6,
  web: 6,
  render: 5,
  setup: 5,
  protocol: 4,
  store: 3,
  io: 2,
  config: 1,
  core: 0,
};

/**
 * io modules that belong to a process edge: how fettle spells itself, stdin, signal cleanup, failpoints, child
 * env, the progress line drawn on stderr (the protocol reports steps to it; the edge knows the terminal), and the
 * processes above it (who runs a command: a person, or an agent).
 */
const PROCESS_EDGE_IO = new Set([
  'io/self',
  'io/stdin',
  'io/cleanup',
  'io/failpoint',
  'io/child-env',
  'io/progress',
  'io/ancestry',
]);
/** commands/ files every command may share; anything else in commands/ is one command, never imported sideways. */
const SHARED_COMMAND_FILES = new Set([
  'commands/edge',
  'commands/change-view',
  'commands/hunks-decision',
  'commands/pager',
  'commands/review-scope',
  'commands/review-push',
  'commands/process-io',
]);
/** The program itself: the files that register every command on it. */
const PROGRAM_FILES = new Set([
  'commands/index',
  'commands/glance',
  'commands/register-changes',
  'commands/register-share',
  'commands/register-attribution',
  'commands/register-upkeep',
]);

const EDGES = new Set<Layer>(['hook', 'commands', 'mcp', 'web']);

const layerOf = (mod: string): Layer => {
  if (mod === 'cli' || mod === 'code-cache') return 'entry';
  // The published JSON Schemas (schema/*.json) are data every layer may read, as core is.
  if (mod.startsWith('../schema/')) return 'core';
  if (mod === 'errors' || mod.startsWith('core/')) return 'core';
  if (mod === 'config') return 'config';
  return mod.split('/')[0] as Layer;
};

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const moduleOf = (file: string): string => relative(SRC, file).replace(/\.ts$/, '');
const files = sources(SRC);
const parsed = new Map(
  files.map((f) => [moduleOf(f), ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true)]),
);

const edges: Edge[] = [...parsed].flatMap(([from, sf]) =>
  sf.statements.flatMap((s): Edge[] => {
    if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) || !s.moduleSpecifier) return [];
    const spec = (s.moduleSpecifier as ts.StringLiteral).text;
    if (!spec.startsWith('.')) return [];
    const to = relative(SRC, resolve(dirname(join(SRC, from)), spec));
    const typeOnly = ts.isImportDeclaration(s) ? !!s.importClause?.isTypeOnly : s.isTypeOnly;
    return [{ from, to, typeOnly }];
  }),
);

const violation = ({ from, to, typeOnly }: Edge): string | null => {
  const a = layerOf(from);
  const b = layerOf(to);
  if (EDGES.has(a) && EDGES.has(b) && a !== b) return 'one edge imports another';
  if (a === 'commands' && b === 'commands' && !PROGRAM_FILES.has(from) && !SHARED_COMMAND_FILES.has(to))
    return 'one command imports another';
  if (MAY_USE[a].includes(b)) return null;
  if (EDGES.has(a) && PROCESS_EDGE_IO.has(to)) return null;
  // A type says nothing about behaviour: it may come from any layer below.
  if (typeOnly && RANK[b] < RANK[a]) return null;
  return `${a} may not import ${b}`;
};

test('every import follows the layer rule', () => {
  assert.ok(edges.length > 100, `found ${edges.length} imports: the scan itself is broken`);
  const bad = edges.flatMap((e) => {
    const why = violation(e);
    return why ? [`${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}: ${why}`] : [];
  });
  assert.deepEqual(bad, []);
});

/**
 * protocol/'s rooms, each with the rooms it may import (its own and the top level, `.`, always). The top level holds
 * only what every capability shares and imports no room. Bottom up; docs/ARCHITECTURE.md draws this table, and
 * the last test below checks the drawing against it.
 */
export const ROOMS: Record<string, string[]> = {
  '.': [],
  decide: [],
  journal: [],
  serve: [],
  record: ['decide'],
  retention: ['record'],
  select: ['journal', 'record'],
  review: ['decide', 'journal', 'record', 'select'],
  // a policy `run` rule's command runs in the test tree of review/
  write: ['decide', 'journal', 'record', 'retention', 'review'],
  bash: ['decide', 'record', 'retention'],
  contract: ['decide', 'record', 'review', 'select', 'write'],
  history: ['bash', 'decide', 'journal', 'record', 'select'],
  upkeep: ['bash', 'record', 'retention', 'review'],
  rewind: ['history', 'select'],
};

/** The room of a protocol module: its sub-folder, or `.` for the top level. */
const roomOf = (mod: string): string => {
  const parts = mod.split('/');
  return parts.length > 2 ? (parts[1] as string) : '.';
};

const roomViolation = ({ from, to }: Edge): string | null => {
  if (layerOf(from) !== 'protocol' || layerOf(to) !== 'protocol') return null;
  const a = roomOf(from);
  const b = roomOf(to);
  const allowed = ROOMS[a];
  if (!allowed) return `protocol/${a} is a room the table does not name`;
  if (!ROOMS[b]) return `protocol/${b} is a room the table does not name`;
  return a === b || b === '.' || allowed.includes(b) ? null : `protocol/${a} may not import protocol/${b}`;
};

test('every import between protocol rooms follows the rooms table', () => {
  const bad = edges.flatMap((e) => {
    const why = roomViolation(e);
    return why ? [`${e.from} -> ${e.to}: ${why}`] : [];
  });
  assert.deepEqual(bad, []);
  const rooms = new Set([...parsed.keys()].filter((m) => layerOf(m) === 'protocol').map(roomOf));
  assert.deepEqual([...rooms].sort(), Object.keys(ROOMS).sort(), 'a room with no module, or a module in no room');
});

test('the rooms table runs bottom up: a room imports only rooms listed before it', () => {
  const order = Object.keys(ROOMS);
  for (const [room, uses] of Object.entries(ROOMS))
    for (const used of uses)
      assert.ok(order.indexOf(used) < order.indexOf(room), `${room} uses ${used}, listed after it`);
});

/** What docs/ARCHITECTURE.md draws between its `layers` markers: the layers top down, protocol's rooms by level. */
const LAYER_FILES: Record<Layer, string> = {
  entry: 'cli.ts  code-cache.ts',
  hook: 'hook/',
  commands: 'commands/',
  mcp: 'mcp/',
  web: 'web/',
  render: 'render/',
  setup: 'setup/',
  protocol: 'protocol/',
  store: 'store/',
  io: 'io/',
  config: 'config.ts',
  core: 'core/  errors.ts',
};

const roomLevel = (room: string): number => Math.max(0, ...(ROOMS[room] ?? []).map((used) => 1 + roomLevel(used)));

export const picture = (): string => {
  const ranks = [...new Set(Object.values(RANK))].sort((a, b) => b - a);
  const lines: string[] = [];
  for (const rank of ranks) {
    const layers = (Object.keys(RANK) as Layer[]).filter((l) => RANK[l] === rank);
    lines.push(layers.map((l) => LAYER_FILES[l]).join('   '));
    if (!layers.includes('protocol')) continue;
    const rooms = Object.keys(ROOMS).filter((r) => r !== '.');
    const levels = [...new Set(rooms.map(roomLevel))].sort((a, b) => b - a);
    for (const level of levels)
      lines.push(
        `    ${rooms
          .filter((r) => roomLevel(r) === level)
          .map((r) => `${r}/`)
          .join('   ')}`,
      );
    lines.push('    (top level: what every room shares)');
  }
  return ['```', ...lines, '```'].join('\n');
};

test('docs/ARCHITECTURE.md draws the layers and rooms these tables hold, and names only files that exist', () => {
  const doc = readFileSync(join(SRC, '..', 'docs', 'ARCHITECTURE.md'), 'utf8');
  const drawn = /<!-- layers -->\n([\s\S]*?)\n<!-- \/layers -->/.exec(doc)?.[1];
  assert.equal(drawn, picture(), 'paste the expected picture between the layers markers');
  const table = new Map(
    [...doc.matchAll(/^\| `([a-z.]+)\/?` \|[^|]*\| ([^|]*) \|$/gm)].map((m) => [
      m[1] as string,
      (m[2] as string).match(/[a-z]+/g)?.filter((w) => w in ROOMS) ?? [],
    ]),
  );
  assert.deepEqual(
    Object.fromEntries([...table].map(([room, uses]) => [room, uses.sort()])),
    Object.fromEntries(Object.entries(ROOMS).map(([room, uses]) => [room, [...uses].sort()])),
    "the rooms table's last column lists what each room may import",
  );
  for (const [, path] of doc.matchAll(/`(src\/[\w/.-]+\.ts)`/g))
    assert.ok(statSync(join(SRC, '..', path as string), { throwIfNoEntry: false }), `${path} does not exist`);
  // A short read stays short: the long explanations belong in the pages it links.
  const words = doc.split(/\s+/).filter(Boolean).length;
  assert.ok(words <= 1500, `docs/ARCHITECTURE.md has ${words} words; move detail to the page it explains`);
});

test('no import cycle, type imports included', () => {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (mod: string, path: string[]) => {
    if (state.get(mod) === 'done') return;
    if (state.get(mod) === 'open') {
      cycles.push([...path.slice(path.indexOf(mod)), mod].join(' -> '));
      return;
    }
    state.set(mod, 'open');
    for (const to of next.get(mod) ?? []) visit(to, [...path, mod]);
    state.set(mod, 'done');
  };
  for (const mod of parsed.keys()) visit(mod, []);
  assert.deepEqual(cycles, []);
});

test('no function takes more than five positional parameters', () => {
  const wide: string[] = [];
  for (const [mod, sf] of parsed) {
    const walk = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && node.parameters.length > 5) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart());
        wide.push(`${mod}.ts:${line + 1} takes ${node.parameters.length}`);
      }
      ts.forEachChild(node, walk);
    };
    walk(sf);
  }
  assert.deepEqual(wide, []);
});

/** A function longer than this many lines, its first to its last inclusive, does not read in one screen. */
const MAX_FUNCTION_LINES = 60;

/** The functions that may be longer, by `module:name`: splitting them would make them harder to read. */
const LONG_FUNCTIONS = new Set([
  // a declarative list: one commander registration per command, in the order `fettle --help` shows them
  'commands/register-changes:registerChangeCommands',
  // the same list for the commands that set fettle up and look after a repository
  'commands/register-upkeep:registerUpkeepCommands',
  // a tokenizer's state machine: one pass over the text, a branch per character that matters to the shell
  'core/shell-split:splitCommandLine',
]);

/** A function's name: its own, else the variable or property it is assigned to. */
const functionName = (node: ts.FunctionLikeDeclaration): string => {
  if (node.name) return node.name.getText();
  const { parent } = node;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  return '(anonymous)';
};

/** Every function with a body in `sf` longer than MAX_FUNCTION_LINES, with its `module:name` and its length. */
const functionLengths = (mod: string, sf: ts.SourceFile): { key: string; at: string; lines: number }[] => {
  const found: { key: string; at: string; lines: number }[] = [];
  const walk = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = functionName(node);
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES)
        found.push({ key: `${mod}:${name}`, at: `${mod}.ts:${first + 1} ${name}`, lines });
    }
    ts.forEachChild(node, walk);
  };
  walk(sf);
  return found;
};

/** The functions too long to read in one screen that no exception names: `file.ts:line name has N lines`. */
const tooLong = (mod: string, sf: ts.SourceFile): string[] =>
  functionLengths(mod, sf)
    .filter((f) => !LONG_FUNCTIONS.has(f.key))
    .map((f) => `${f.at} has ${f.lines} lines`);

test('no function is longer than 60 lines, but the named exceptions', () => {
  assert.deepEqual(
    [...parsed].flatMap(([mod, sf]) => tooLong(mod, sf)),
    [],
  );
  // An exception that is gone, or short now, is taken off the list: it would let a new long function of its name in.
  const long = new Set([...parsed].flatMap(([mod, sf]) => functionLengths(mod, sf).map((f) => f.key)));
  assert.deepEqual(
    [...LONG_FUNCTIONS].filter((key) => !long.has(key)),
    [],
  );
});

test('the length rule would catch a long function', () => {
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const a${i} = ${i};`).join('\n');
  const sf = (text: string) => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  assert.deepEqual(tooLong('core/x', sf(`export const f = () => {\n${body(61)}\n};`)), ['core/x.ts:1 f has 61 lines']);
  assert.deepEqual(tooLong('core/x', sf(`const g = 1;\nclass C {\n  m() {\n${body(61)}\n  }\n}`)), [
    'core/x.ts:3 m has 61 lines',
  ]);
  assert.deepEqual(tooLong('core/x', sf(`export function h() {\n${body(60)}\n}`)), []);
  assert.deepEqual(tooLong('core/shell-split', sf(`export const splitCommandLine = () => {\n${body(61)}\n};`)), []);
});

test('the page (web/page/) is built for the browser: at run time it imports its own modules only', () => {
  const page = edges.filter((e) => e.from.startsWith('web/page/'));
  assert.ok(page.length > 10, `found ${page.length} imports in web/page/: the scan itself is broken`);
  const bad = page.filter((e) => !e.typeOnly && !e.to.startsWith('web/page/')).map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(bad, []);
});

test("the page's files are at most 250 lines (its functions keep the rule above)", () => {
  const long = [...parsed].flatMap(([mod, sf]) => {
    const lines = sf.getLineAndCharacterOfPosition(sf.getEnd()).line;
    return mod.startsWith('web/page/') && lines > 250 ? [`${mod}.ts has ${lines} lines`] : [];
  });
  assert.deepEqual(long, []);
});

/** What core/ may take from outside the repository (an empty list: anything it exports): computation only. */
const PURE_IMPORTS: Record<string, string[]> = { diff: [], 'node:buffer': ['isUtf8'], 'node:crypto': ['createHash'] };
const IMPURE = /\bDate\.now\(|new Date\(\s*\)|Math\.random\(|\bprocess\.|\brequire\(|\bimport\(/;

const impurities = (mod: string, sf: ts.SourceFile): string[] => {
  const found: string[] = [];
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s)) continue;
    const spec = (s.moduleSpecifier as ts.StringLiteral).text;
    if (spec.startsWith('.')) continue;
    const allowed = PURE_IMPORTS[spec];
    const bindings = s.importClause?.namedBindings;
    const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : ['*'];
    const typeOnly = !!s.importClause?.isTypeOnly;
    const bad = allowed === undefined ? names : names.filter((n) => allowed.length > 0 && !allowed.includes(n));
    if (!typeOnly && bad.length) found.push(`${mod}.ts imports ${bad.join(', ')} from ${spec}`);
  }
  const code = sf.getFullText().replace(/\/\/.*$/gm, '');
  const match = IMPURE.exec(code);
  if (match) found.push(`${mod}.ts uses ${match[0]}`);
  return found;
};

test('core is pure: computation only, no clock, randomness, process or I/O', () => {
  const core = [...parsed].filter(([mod]) => layerOf(mod) === 'core');
  assert.ok(core.length > 10, `found ${core.length} core modules: the scan itself is broken`);
  assert.deepEqual(
    core.flatMap(([mod, sf]) => impurities(mod, sf)),
    [],
  );
});

test('the purity check would catch an impure core', () => {
  const sf = (text: string) => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  assert.deepEqual(impurities('core/x', sf("import { randomBytes } from 'node:crypto';")), [
    'core/x.ts imports randomBytes from node:crypto',
  ]);
  assert.deepEqual(impurities('core/x', sf("import { readFileSync } from 'node:fs';")), [
    'core/x.ts imports readFileSync from node:fs',
  ]);
  assert.deepEqual(impurities('core/x', sf('export const now = () => Date.now();')), ['core/x.ts uses Date.now(']);
  assert.deepEqual(impurities('core/x', sf("import { createHash } from 'node:crypto';")), []);
});

test('the rule would catch a violation', () => {
  assert.equal(
    violation({ from: 'commands/log', to: 'store/locate', typeOnly: false }),
    'commands may not import store',
  );
  assert.equal(violation({ from: 'core/diff', to: 'io/atomic-write', typeOnly: true }), 'core may not import io');
  assert.equal(
    violation({ from: 'commands/review', to: 'commands/show', typeOnly: false }),
    'one command imports another',
  );
  assert.equal(violation({ from: 'hook/run', to: 'protocol/write', typeOnly: false }), null);
  assert.equal(violation({ from: 'mcp/server', to: 'commands/edge', typeOnly: false }), 'one edge imports another');
  assert.equal(violation({ from: 'mcp/edge', to: 'store/locate', typeOnly: false }), 'mcp may not import store');
  assert.equal(violation({ from: 'mcp/edge', to: 'io/self', typeOnly: false }), null);
  assert.equal(violation({ from: 'commands/install', to: 'setup/doctor', typeOnly: false }), null);
  assert.equal(violation({ from: 'hook/run', to: 'setup/doctor', typeOnly: false }), 'hook may not import setup');
  assert.equal(
    violation({ from: 'protocol/write/write', to: 'setup/doctor', typeOnly: true }),
    'protocol may not import setup',
  );
  assert.equal(
    roomViolation({ from: 'protocol/record/record', to: 'protocol/write/write', typeOnly: false }),
    'protocol/record may not import protocol/write',
  );
  assert.equal(roomViolation({ from: 'protocol/write/write', to: 'protocol/record/record', typeOnly: true }), null);
  assert.equal(
    roomViolation({ from: 'protocol/changes', to: 'protocol/record/record', typeOnly: true }),
    'protocol/. may not import protocol/record',
  );
});
