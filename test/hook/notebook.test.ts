// `fettle hook` for NotebookEdit, end to end: the threshold counts changed lines of cell source, the record
// keeps the whole .ipynb; a staged edit's proposal is the whole notebook with the edit, as valid JSON.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Repo } from '../helpers/repo';
import { T0 } from '../helpers/stage';
import {
  assertSilent,
  blobAt,
  type CallOpts,
  changeOf,
  denied,
  directNote,
  fettleRefs,
  hook,
  kindAt,
  landedText,
  type NotebookArgs,
  notebookInput,
  recordedLine,
  scenario,
  show,
  STAGE_ALL,
  toolCall,
  type ToolRun,
} from '../helpers/tools';

type Cell = {
  cell_type: string;
  id?: string;
  source: string[] | string;
  outputs?: unknown[];
  execution_count?: number | null;
  metadata: object;
};
type Notebook = { cells: Cell[]; metadata: object; nbformat: number; nbformat_minor: number };

const src = (n: number, word: string): string[] =>
  Array.from({ length: n }, (_, i) => `${word} ${i + 1}${i + 1 < n ? '\n' : ''}`);
const text = (n: number, word: string): string => src(n, word).join('');
const cell = (type: string, id: string | undefined, source: string[]): Cell =>
  type === 'code'
    ? { cell_type: 'code', execution_count: null, ...(id ? { id } : {}), metadata: {}, outputs: [], source }
    : { cell_type: 'markdown', ...(id ? { id } : {}), metadata: {}, source };
/** 30 source lines: markdown `intro` (4), code `c1` (10), code `c2` (16); written as Jupyter does (indent 1). */
const notebook = (ids = true): Notebook => ({
  cells: [
    cell('markdown', ids ? 'intro' : undefined, src(4, 'intro')),
    cell('code', ids ? 'c1' : undefined, src(10, 'c1')),
    cell('code', ids ? 'c2' : undefined, src(16, 'c2')),
  ],
  metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
  nbformat: 4,
  nbformat_minor: ids ? 5 : 4,
});
const ipynb = (nb: Notebook): string => `${JSON.stringify(nb, null, 1)}\n`;
const NB = { 'nb.ipynb': ipynb(notebook()) };

/** The notebook Claude Code writes: one-space JSON (an edited cell's source one string), the final newline kept. */
const toolWrites = (nb: Notebook): string => `${JSON.stringify(nb, null, 1)}\n`;
/** A cell as Claude Code inserts it: its keys in its order, an id it draws at random (8 hex characters). */
const inserted = (type: 'code' | 'markdown', source: string): Cell =>
  (type === 'code'
    ? { cell_type: 'code', id: '9f3e2a71', source, metadata: {}, execution_count: null, outputs: [] }
    : { cell_type: 'markdown', id: '9f3e2a71', source, metadata: {} }) as Cell;

/** One NotebookEdit; the tool writes `landed` (null: the tool fails). Returns the run and the new change's id. */
const call = (
  repo: Repo,
  a: NotebookArgs,
  landed: string | null,
  o: CallOpts = {},
): { run: ToolRun; id: string; tip: string } => {
  const known = fettleRefs(repo);
  const run = toolCall(
    repo,
    'NotebookEdit',
    notebookInput(repo.path('nb.ipynb'), a),
    () => (landed === null ? false : writeFileSync(repo.path('nb.ipynb'), landed)),
    o,
  );
  return { run, ...changeOf(repo, run, known) };
};
const parsed = (bytes: Buffer | null): Notebook => JSON.parse(bytes?.toString('utf8') ?? 'null') as Notebook;
const sources = (nb: Notebook): string[] =>
  nb.cells.map((c) => `${c.cell_type}:${Array.isArray(c.source) ? c.source.join('') : c.source}`);
const staged = (run: ToolRun): string => /\+\d+ -\d+ to (?:an empty|a \d+-line) file/.exec(denied(run.pre))?.[0] ?? '';

// [label, edit, the tool's result, the Post line's counts]
const direct: [string, NotebookArgs, (nb: Notebook) => void, string][] = [
  [
    'replace 3 lines of a code cell',
    { cellId: 'c1', source: text(10, 'c1').replace(/c1 [123]\n/g, 'new\n') },
    (nb) => void (nb.cells[1]!.source = text(10, 'c1').replace(/c1 [123]\n/g, 'new\n')),
    '+3 -3 ~3',
  ],
  [
    'insert a code cell at the start',
    { mode: 'insert', cellType: 'code', source: text(3, 'top') },
    (nb) => void nb.cells.unshift(inserted('code', text(3, 'top'))),
    '+3 -0 ~0',
  ],
  [
    'insert a markdown cell after c2',
    { mode: 'insert', cellId: 'c2', cellType: 'markdown', source: '# End' },
    (nb) => void nb.cells.push(inserted('markdown', '# End')),
    '+1 -0 ~0',
  ],
  ['delete the markdown cell', { mode: 'delete', cellId: 'intro' }, (nb) => void nb.cells.shift(), '+0 -4 ~0'],
];
for (const [label, a, apply, counts] of direct) {
  scenario(`NotebookEdit, small (${label}): direct; the record keeps the whole .ipynb as it landed`, NB, (repo) => {
    const old = repo.read('nb.ipynb');
    const nb = notebook();
    apply(nb);
    const { run, id } = call(repo, a, toolWrites(nb));
    assertSilent(run.pre, 'a direct PreToolUse');
    assert.match(recordedLine(run.post, id), directNote('nb.ipynb', `${landedText(toolWrites(nb))}, ${counts}`, id));
    assert.deepEqual(blobAt(repo, `fettle/${id}^`, 'nb.ipynb'), old);
    assert.equal(blobAt(repo, `fettle/${id}`, 'nb.ipynb')?.toString(), toolWrites(nb));
  });
}

// [label, edit, the proposal's cells, counts in the deny]
const large: [string, NotebookArgs, string[], string][] = [
  [
    'rewrite c1',
    { cellId: 'c1', source: text(10, 'C1') },
    [`markdown:${text(4, 'intro')}`, `code:${text(10, 'C1')}`, `code:${text(16, 'c2')}`],
    '+10 -10 to a 30-line file',
  ],
  [
    'insert 15 markdown lines after intro',
    { mode: 'insert', cellId: 'intro', cellType: 'markdown', source: text(15, 'md') },
    [`markdown:${text(4, 'intro')}`, `markdown:${text(15, 'md')}`, `code:${text(10, 'c1')}`, `code:${text(16, 'c2')}`],
    '+15 -0 to a 30-line file',
  ],
  [
    'delete c2',
    { mode: 'delete', cellId: 'c2' },
    [`markdown:${text(4, 'intro')}`, `code:${text(10, 'c1')}`],
    '+0 -16 to a 30-line file',
  ],
];
for (const [label, a, cells, counts] of large) {
  scenario(`NotebookEdit, large (${label}): staged; the proposal is the whole notebook, valid JSON`, NB, (repo) => {
    const old = repo.read('nb.ipynb');
    const { run, id } = call(repo, a, null);
    assert.equal(run.ran, false);
    assert.equal(staged(run), counts, 'counts are of source lines');
    assert.deepEqual(repo.read('nb.ipynb'), old, 'nothing written');
    assert.deepEqual(blobAt(repo, `fettle/${id}^`, 'nb.ipynb'), old);
    const proposal = parsed(blobAt(repo, `fettle/${id}`, 'nb.ipynb'));
    assert.deepEqual(sources(proposal), cells);
    assert.deepEqual({ ...proposal, cells: [] }, { ...notebook(), cells: [] }, 'notebook metadata kept');
  });
}

scenario('a staged notebook edit shows the diff of the cell source, not of the JSON', NB, (repo) => {
  const reason = denied(
    hook(repo, 'NotebookEdit', notebookInput(repo.path('nb.ipynb'), { cellId: 'c1', source: text(10, 'C1') })),
  );
  const body = reason.split('\n');
  for (const l of ['--- a/nb.ipynb', '+++ b/nb.ipynb', '-c1 1', '+C1 10'])
    assert.ok(body.includes(l), `${l}\n${reason}`);
  assert.doesNotMatch(reason, /"source"|"cell_type"/);
});

scenario('the printed confirm writes the staged notebook: valid JSON with the edit', NB, (repo) => {
  const reason = denied(
    hook(repo, 'NotebookEdit', notebookInput(repo.path('nb.ipynb'), { cellId: 'c1', source: text(10, 'C1') })),
  );
  execFileSync('sh', ['-c', /^To apply it, run: (.+)$/m.exec(reason)![1]!], {
    cwd: repo.dir,
    env: { ...repo.env, FETTLE_NOW: String(T0) },
    stdio: 'pipe',
  });
  assert.equal(sources(parsed(repo.read('nb.ipynb')))[1], `code:${text(10, 'C1')}`);
});

scenario('an inserted cell gets a fresh id when the cells have ids', NB, (repo) => {
  const { id } = call(repo, { mode: 'insert', cellType: 'code', source: 'x' }, null, { env: STAGE_ALL });
  const ids = parsed(blobAt(repo, `fettle/${id}`, 'nb.ipynb')).cells.map((c) => c.id);
  assert.match(ids[0] ?? '', /^[A-Za-z0-9_-]{1,64}$/);
  assert.equal(new Set(ids).size, 4, `ids are unique: ${ids.join(' ')}`);
});

scenario(
  'an inserted cell gets no id in a notebook without ids (nbformat 4.4)',
  { 'nb.ipynb': ipynb(notebook(false)) },
  (repo) => {
    const { id } = call(repo, { mode: 'insert', cellType: 'markdown', source: 'x' }, null, { env: STAGE_ALL });
    const first = parsed(blobAt(repo, `fettle/${id}`, 'nb.ipynb')).cells[0];
    assert.equal(JSON.stringify(first), '{"cell_type":"markdown","source":"x","metadata":{}}');
  },
);

// [label, edit]: fettle cannot know the result, so it keeps the previous bytes and lets the tool report.
const unsure: [string, NotebookArgs][] = [
  ['an unknown cell_id', { cellId: 'nope', source: 'x' }],
  ['replace without cell_id', { source: 'x' }],
  ['insert without cell_type', { mode: 'insert', source: 'x' }],
  ['a cell-N index past the end', { cellId: 'cell-9', source: 'x' }],
];
for (const [label, a] of unsure) {
  scenario(
    `NotebookEdit unsure (${label}): previous bytes recorded while the tool runs; it fails, the record is dropped`,
    NB,
    (repo) => {
      const { run, id, tip } = call(repo, a, null, { env: STAGE_ALL });
      assertSilent(run.pre);
      assertSilent(run.post, 'PostToolUseFailure');
      assert.deepEqual([kindAt(repo, tip), blobAt(repo, tip, 'nb.ipynb')], ['before', repo.read('nb.ipynb')]);
      assert.deepEqual(
        fettleRefs(repo).filter((r) => r.endsWith(id)),
        [],
      );
    },
  );
}

scenario('NotebookEdit unsure, the tool writes anyway: what landed is recorded', NB, (repo) => {
  const nb = notebook();
  nb.cells[1] = cell('markdown', 'c1', ['x']);
  const { run, id } = call(repo, { cellId: 'nope', cellType: 'markdown', source: 'x' }, toolWrites(nb));
  assertSilent(run.pre);
  recordedLine(run.post, id);
  assert.equal(blobAt(repo, `fettle/${id}`, 'nb.ipynb')?.toString(), toolWrites(nb));
});

scenario('a notebook that is not JSON: unsure, previous bytes recorded', { 'nb.ipynb': '{"cells": [' }, (repo) => {
  const { run, tip } = call(repo, { cellId: 'c1', source: 'x' }, null, { env: STAGE_ALL });
  assertSilent(run.pre);
  assert.equal(blobAt(repo, tip, 'nb.ipynb')?.toString(), '{"cells": [');
});

scenario('a missing notebook: nothing to keep, nothing recorded', {}, (repo) => {
  assertSilent(
    hook(repo, 'NotebookEdit', notebookInput(repo.path('nb.ipynb'), { mode: 'insert', cellType: 'code', source: 'x' })),
  );
  assert.deepEqual(fettleRefs(repo), []);
});

scenario('plan mode: NotebookEdit does nothing at all', NB, (repo) => {
  for (const a of [
    { cellId: 'c1', source: 'x' },
    { cellId: 'c1', source: text(10, 'C1') },
    { cellId: 'nope', source: 'x' },
  ]) {
    assertSilent(hook(repo, 'NotebookEdit', notebookInput(repo.path('nb.ipynb'), a), { mode: 'plan' }));
  }
  assert.deepEqual(fettleRefs(repo), []);
});

// [label, tool_input]: a call fettle cannot read is reported (exit 1), never guessed at.
const malformed: [string, (r: Repo) => Record<string, unknown>][] = [
  ['file_path instead of notebook_path', (r) => ({ file_path: r.path('nb.ipynb'), cell_id: 'c1', new_source: 'x' })],
  [
    'edit_mode "append"',
    (r) => ({ ...notebookInput(r.path('nb.ipynb'), { cellId: 'c1', source: 'x' }), edit_mode: 'append' }),
  ],
  [
    'cell_type "raw"',
    (r) => ({ ...notebookInput(r.path('nb.ipynb'), { mode: 'insert', source: 'x' }), cell_type: 'raw' }),
  ],
  ['new_source missing on replace', (r) => ({ notebook_path: r.path('nb.ipynb'), cell_id: 'c1' })],
];
for (const [label, input] of malformed) {
  scenario(`malformed NotebookEdit: ${label} -> exit 1, says it is not protected`, NB, (repo) => {
    const r = hook(repo, 'NotebookEdit', input(repo));
    assert.deepEqual([r.code, r.stdout], [1, ''], show(r));
    assert.match(r.stderr, /^fettle: .*not protected by fettle\.\n$/);
    assert.deepEqual(fettleRefs(repo), []);
  });
}
