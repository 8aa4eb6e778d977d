// One piece of a hunk on the page: a placeholder of its height until it comes near the viewport, then its table,
// then its highlighting when the worker answers (if it is still near). Unified or split is the host's.
import { hunkTable, type Mode, sidesOf } from './diff-rows';
import { el } from './dom';
import { type HighlightRequest, paintLine } from './highlight';
import type { LazyPiece } from './lazy';
import type { Piece } from './pieces';

export interface PieceHost {
  mode(): Mode;
  watch(piece: LazyPiece): void;
  unwatch(piece: LazyPiece): void;
  highlight(r: HighlightRequest): void;
}

export class PieceView implements LazyPiece {
  readonly el: HTMLElement = el('div', { class: 'piece placeholder' });
  rendered = false;
  near = false;

  constructor(
    private readonly host: PieceHost,
    private readonly piece: Piece,
    /** names the piece among all the page shows: its highlighting is kept under it */
    private readonly key: string,
    private readonly lang: string | null,
    private readonly after: () => void = () => undefined,
  ) {
    this.placehold();
    host.watch(this);
  }

  render(): void {
    this.el.replaceChildren(hunkTable(this.piece.text, this.host.mode()));
    this.el.classList.remove('placeholder');
    this.el.style.removeProperty('--rows');
    this.rendered = true;
    this.after();
    this.nearAgain();
  }

  nearAgain(): void {
    if (this.lang) this.host.highlight(this.request(this.lang));
  }

  private placehold(): void {
    this.el.replaceChildren();
    this.el.classList.add('placeholder');
    // CSSOM, not a style attribute: the page's policy allows it
    this.el.style.setProperty('--rows', String(this.piece.rows[this.host.mode()]));
    this.rendered = false;
  }

  /** Unified or split changed: a placeholder again, rendered anew as it comes near. */
  remode(): void {
    this.host.unwatch(this);
    this.placehold();
    this.host.watch(this);
  }

  dispose(): void {
    this.host.unwatch(this);
  }

  private request(lang: string): HighlightRequest {
    return {
      key: this.key,
      lang,
      sides: sidesOf(this.piece.text),
      near: () => this.near,
      paint: (tokens) => {
        if (!this.rendered) return;
        for (const ctn of this.el.querySelectorAll<HTMLElement>('.ctn')) {
          const side = Number(ctn.dataset.side);
          const flat = tokens[side]?.[Number(ctn.dataset.line) - (this.piece.starts[side] ?? 0)];
          if (flat) paintLine(ctn, flat);
        }
      },
    };
  }
}
