// One hunk's lines as a table, unified or split. diff2html parses the hunk's text, pairs its changed lines and
// marks the words that differ, escaping the file's text as it writes its markup; that markup is parsed in an
// inert <template> (nothing in it loads or runs) and only its line numbers and escaped line contents are moved
// into the page's own rows. No string of the page's own is ever parsed as markup.
import { html, parse } from 'diff2html';
import { el } from './dom';

export type Mode = 'unified' | 'split';
type Kind = 'ctx' | 'add' | 'del' | 'empty';

interface Cell {
  kind: Kind;
  /** the line's number on its side (the new side for context in unified) */
  line: number | null;
  /** the line's content as diff2html escaped and marked it */
  content: Node[];
}

/** diff2html wants a file header before the first `@@`; the name is not shown. */
const HEADER = '--- a/file\n+++ b/file\n';

const markupOf = (text: string, mode: Mode): DocumentFragment => {
  const template = document.createElement('template');
  template.innerHTML = html(parse(`${HEADER}${text}\n`), {
    outputFormat: mode === 'split' ? 'side-by-side' : 'line-by-line',
    drawFileList: false,
    diffStyle: 'word',
    // similar lines are paired for their words' marks (unified then lists a run's removed lines first)
    matching: 'lines',
  });
  return template.content;
};

const kindOf = (td: Element | undefined): Kind | null => {
  if (!td || td.classList.contains('d2h-info')) return null;
  if (td.classList.contains('d2h-ins')) return 'add';
  if (td.classList.contains('d2h-del')) return 'del';
  if (td.classList.contains('d2h-cntx')) return 'ctx';
  return 'empty';
};

const numberIn = (node: Element | null | undefined): number | null => {
  const n = Number.parseInt(node?.textContent?.trim() ?? '', 10);
  return Number.isFinite(n) ? n : null;
};

const contentOf = (td: Element): Node[] => [...(td.querySelector('.d2h-code-line-ctn')?.childNodes ?? [])];

const PREFIX: Record<Kind, string> = { ctx: ' ', add: '+', del: '-', empty: '' };

/** The number cell and the code cell of one side of a row. */
const cells = (cell: Cell, side: 'old' | 'new', selectable: boolean): HTMLTableCellElement[] => {
  const numberCell = el('td', {
    class: `num ${side} ${cell.kind}`,
    text: cell.line === null ? '' : String(cell.line),
    attrs: { 'data-line': selectable && cell.line !== null ? String(cell.line) : undefined },
  });
  const code = el('td', { class: `code ${cell.kind}` });
  if (cell.kind !== 'empty') {
    const ctn = el('span', {
      class: 'ctn',
      attrs: { 'data-side': side === 'old' ? '0' : '1', 'data-line': String(cell.line ?? '') },
    });
    ctn.append(...cell.content);
    code.append(el('span', { class: 'mk', text: PREFIX[cell.kind], attrs: { 'aria-hidden': 'true' } }), ctn);
  }
  return [numberCell, code];
};

/** Each run of changed lines as a pull request shows it: its removed lines, then its added ones. */
const removedFirst = (rows: HTMLTableRowElement[]): HTMLTableRowElement[] => {
  const out: HTMLTableRowElement[] = [];
  let run: HTMLTableRowElement[] = [];
  const flush = () => {
    out.push(...run.filter((r) => r.className === 'del'), ...run.filter((r) => r.className === 'add'));
    run = [];
  };
  for (const row of rows) {
    if (row.className === 'del' || row.className === 'add') run.push(row);
    else {
      flush();
      out.push(row);
    }
  }
  flush();
  return out;
};

const unifiedRows = (body: DocumentFragment): HTMLTableRowElement[] =>
  [...body.querySelectorAll('tbody tr')].flatMap((tr) => {
    const [nums, code] = [...tr.children];
    const kind = kindOf(code);
    if (!kind || !code) return [];
    const oldLine = numberIn(nums?.querySelector('.line-num1'));
    const newLine = numberIn(nums?.querySelector('.line-num2'));
    const line = kind === 'del' ? oldLine : newLine;
    const [, codeCell] = cells({ kind, line, content: contentOf(code) }, kind === 'del' ? 'old' : 'new', false);
    const row = el('tr', { class: kind }, [
      el('td', { class: `num old ${kind}`, text: oldLine === null ? '' : String(oldLine) }),
      el('td', {
        class: `num new ${kind}`,
        text: newLine === null ? '' : String(newLine),
        attrs: { 'data-line': newLine === null ? undefined : String(newLine) },
      }),
      codeCell,
    ]);
    return [row];
  });

const sideCells = (tr: Element | undefined): Cell | null => {
  const [num, code] = [...(tr?.children ?? [])];
  const kind = kindOf(code);
  if (!kind || !code) return null;
  return { kind, line: kind === 'empty' ? null : numberIn(num), content: contentOf(code) };
};

const splitRows = (body: DocumentFragment): HTMLTableRowElement[] => {
  const [left, right] = [...body.querySelectorAll('tbody')].map((t) => [...t.children]);
  return (left ?? []).flatMap((tr, i) => {
    const l = sideCells(tr);
    const r = sideCells(right?.[i]);
    if (!l || !r) return [];
    return [el('tr', {}, [...cells(l, 'old', false), ...cells(r, 'new', true)])];
  });
};

/** The hunk's table; `text` is its unified diff from its `@@` line on. */
export const hunkTable = (text: string, mode: Mode): HTMLTableElement => {
  const body = markupOf(text, mode);
  const rows = mode === 'split' ? splitRows(body) : removedFirst(unifiedRows(body));
  const cols = mode === 'split' ? ['num', 'code', 'num', 'code'] : ['num', 'num', 'code'];
  return el('table', { class: `diff ${mode}` }, [
    el(
      'colgroup',
      {},
      cols.map((c) => el('col', { class: c })),
    ),
    el('tbody', {}, rows),
  ]);
};

/** The lines of each side of a hunk (old: context and removed; new: context and added), for highlighting. */
export const sidesOf = (text: string): [string[], string[]] => {
  const old: string[] = [];
  const now: string[] = [];
  for (const line of text.split('\n').slice(1)) {
    const mark = line[0];
    if (mark === ' ' || mark === '-') old.push(line.slice(1));
    if (mark === ' ' || mark === '+') now.push(line.slice(1));
  }
  return [old, now];
};
