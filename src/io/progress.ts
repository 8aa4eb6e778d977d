// Progress of long steps, on stderr: a terminal gets one line redrawn in place; anything else (a log, a pipe, the
// agent's tool output) gets one plain line per step and none of the redraws, so nothing fills up with updates.
// A step that is usually short can ask to be shown only once it has lasted `delayMs`.

export interface Progress {
  /** a step begins: shown now, or once it has lasted `delayMs` */
  step(text: string, o?: { delayMs?: number }): void;
  /** how far the current step is: a terminal redraws its line with it; elsewhere nothing is printed */
  update(text: string): void;
  /** the step is over: a terminal's line is cleared, so the next output starts on a clean line */
  done(): void;
}

export const noProgress: Progress = { step: () => undefined, update: () => undefined, done: () => undefined };

const CLEAR = '\r\x1b[K';

export const createProgress = (o: { write: (raw: string) => void; tty: boolean; columns?: number }): Progress => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown = false;
  let current = '';
  const fit = (text: string) => (o.columns && text.length >= o.columns ? `${text.slice(0, o.columns - 2)}…` : text);
  const show = () => {
    timer = undefined;
    shown = true;
    o.write(o.tty ? `${CLEAR}${fit(current)}` : `${current}\n`);
  };
  const done = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (shown && o.tty) o.write(CLEAR);
    shown = false;
  };
  return {
    step: (text, s = {}) => {
      done();
      current = text;
      if (!s.delayMs) return show();
      timer = setTimeout(show, s.delayMs);
      timer.unref?.();
    },
    update: (text) => {
      current = text;
      if (shown && o.tty) o.write(`${CLEAR}${fit(text)}`);
    },
    done,
  };
};
