// Comments: the cards of those left on a hunk or a change, and the box to write one. A comment may point at lines
// of the hunk's new side, picked with the mouse or typed (12 or 12-15). Ctrl+Enter saves; Esc leaves the box
// (it stays open, with its text) and gives the keys back to the page.
import type { CommentDraft } from './api';
import { button, el } from './dom';

type Lines = { from: number; to: number };

const whereOf = (c: { hunk?: number | undefined; lines?: Lines | undefined }): string =>
  c.hunk === undefined
    ? 'On the whole change'
    : c.lines
      ? `On line${c.lines.from === c.lines.to ? ` ${c.lines.from}` : `s ${c.lines.from}–${c.lines.to}`}`
      : `On hunk ${c.hunk}`;

export const commentCard = (c: CommentDraft, on: { edit: () => void; remove: () => void }): HTMLElement =>
  el('div', { class: 'comment', attrs: { role: 'note' } }, [
    el('div', { class: 'comment-meta' }, [
      el('span', { class: 'comment-where', text: whereOf(c) }),
      button('Edit', on.edit, { class: 'link', aria: `Edit the comment: ${c.text.slice(0, 40)}` }),
      button('Delete', on.remove, { class: 'link', aria: `Delete the comment: ${c.text.slice(0, 40)}` }),
    ]),
    el('p', { class: 'comment-text', text: c.text }),
  ]);

export interface EditorOptions {
  /** what the box is about, e.g. "hunk 2 of src/a.ts" */
  about: string;
  text?: string | undefined;
  lines?: Lines | undefined;
  /** the new side's lines a range may name; none: a comment on the whole change */
  range?: Lines | undefined;
  save: (text: string, lines: Lines | undefined) => void;
  close: () => void;
  /** where the focus goes when Esc leaves the box */
  leave: () => void;
}

export const parseLines = (text: string, range: Lines): Lines | 'bad' | undefined => {
  if (text.trim() === '') return undefined;
  const m = /^\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*$/.exec(text);
  if (!m) return 'bad';
  const from = Number(m[1]);
  const to = Number(m[2] ?? m[1]);
  return from <= to && from >= range.from && to <= range.to ? { from, to } : 'bad';
};

let boxes = 0;

/** The comment box; its textarea is what `c` focuses. */
export const commentEditor = (o: EditorOptions): HTMLElement => {
  const id = `cbox-${++boxes}`;
  const area = el('textarea', {
    class: 'comment-input',
    attrs: { id, rows: '3', maxlength: '4000', placeholder: 'Leave a comment for the agent' },
  });
  area.value = o.text ?? '';
  const linesInput = el('input', {
    class: 'lines-input',
    attrs: { id: `${id}-lines`, type: 'text', inputmode: 'numeric', placeholder: 'all', size: '8' },
  });
  linesInput.value = o.lines ? `${o.lines.from}${o.lines.to === o.lines.from ? '' : `-${o.lines.to}`}` : '';
  const error = el('span', { class: 'field-error', attrs: { role: 'alert' } });
  const save = () => {
    const lines = o.range ? parseLines(linesInput.value, o.range) : undefined;
    if (lines === 'bad' && o.range) {
      error.textContent = `Lines must lie within ${o.range.from}–${o.range.to}, as 12 or 12-15.`;
      linesInput.focus();
      return;
    }
    o.save(area.value, lines === 'bad' ? undefined : lines);
  };
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      o.leave();
    }
  };
  area.addEventListener('keydown', keys);
  linesInput.addEventListener('keydown', keys);
  return el('div', { class: 'comment-box', attrs: { role: 'group', 'aria-label': `Comment on ${o.about}` } }, [
    el('label', { class: 'visually-hidden', text: `Comment on ${o.about}`, attrs: { for: id } }),
    area,
    el('div', { class: 'comment-box-foot' }, [
      o.range ? el('label', { text: 'Lines of the new side', attrs: { for: `${id}-lines` } }) : null,
      o.range ? linesInput : null,
      error,
      el('span', { class: 'hint', text: 'Ctrl+Enter saves · Esc leaves the box' }),
      button('Cancel', o.close),
      button('Save comment', save, { class: 'primary' }),
    ]),
  ]);
};
