// The comment boxes open on the page, one per hunk or change at most: opening one that is open focuses it; saving
// sends the comment as a draft (an edited one replaces the one it was, which may have pointed elsewhere).
import type { CommentDraft, Draft } from './api';
import type { ChangeView } from './change-view';
import { commentEditor } from './comments';
import { announce } from './dom';
import { HunkView } from './hunk-view';

type Target = HunkView | ChangeView;

export class CommentBoxes {
  private readonly boxes = new Map<Target, HTMLElement>();

  constructor(private readonly send: (drafts: Draft[]) => void) {}

  clear(): void {
    this.boxes.clear();
  }

  /** Boxes whose text differs from what was saved. */
  unsaved(): number {
    return [...this.boxes.values()].filter((box) => {
      const text = box.querySelector('textarea')?.value.trim() ?? '';
      return text !== '' && text !== box.dataset.saved;
    }).length;
  }

  edit(view: Target, c: CommentDraft): void {
    this.boxes.get(view)?.remove();
    this.boxes.delete(view);
    this.open(view, c);
  }

  open(view: Target, editing: CommentDraft | undefined): void {
    const found = this.boxes.get(view);
    if (found) return void found.querySelector('textarea')?.focus();
    const hunk = view instanceof HunkView ? view : undefined;
    const home = () => (hunk?.el ?? view.el).focus({ preventScroll: true });
    const close = () => {
      box.remove();
      this.boxes.delete(view);
      home();
    };
    const box = commentEditor({
      about: hunk ? `hunk ${hunk.hunk.index} of ${view.change.path}` : `the whole of ${view.change.path}`,
      text: editing?.text,
      lines: editing ? editing.lines : hunk?.lines,
      range: hunk?.newRange(),
      save: (text, lines) => {
        const draft: CommentDraft = { kind: 'comment', change: view.change.id, hunk: hunk?.hunk.index, lines, text };
        this.send(editing ? [{ ...editing, text: '' }, draft] : [draft]);
        if (hunk) hunk.lines = undefined;
        hunk?.showLines();
        close();
        announce('Comment saved as a draft.');
      },
      close,
      leave: home,
    });
    box.dataset.saved = editing?.text.trim() ?? '';
    this.boxes.set(view, box);
    view.comments.after(box);
    box.querySelector('textarea')?.focus();
  }
}
