// The page by keyboard alone. Keys act on the current hunk; none acts while a text field has the focus (Esc leaves
// it) or while a dialog is open (it has its own keys), or with Ctrl, Alt or Meta held (the browser's own).
// The help overlay (?) lists these same keys: KEYS is both.

export interface KeyActions {
  next(): void;
  previous(): void;
  keep(): void;
  discard(): void;
  undecide(): void;
  keepAll(): void;
  discardAll(): void;
  comment(): void;
  toggleMode(): void;
  apply(): void;
  help(): void;
  /** Esc outside a field: leave the change being viewed */
  back(): void;
}

export const KEYS: [keys: string[], what: string, action: keyof KeyActions][] = [
  [['j', 'n'], 'Next hunk', 'next'],
  [['k', 'p'], 'Previous hunk', 'previous'],
  [['y'], 'Keep the hunk, then go to the next', 'keep'],
  [['x', 'd'], 'Discard the hunk, then go to the next', 'discard'],
  [['u'], 'Undecided: neither keep nor discard', 'undecide'],
  [['Y'], 'Keep all of the change', 'keepAll'],
  [['X'], 'Discard all of the change', 'discardAll'],
  [['c'], 'Comment on the hunk (Esc leaves the box, Ctrl+Enter saves)', 'comment'],
  [['s'], 'Switch between unified and split', 'toggleMode'],
  [['a'], 'Apply the decisions (asks first)', 'apply'],
  [['?'], 'This help', 'help'],
  [['Escape'], 'Back to the review from a change opened on its own', 'back'],
];

const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

export const bindKeys = (actions: KeyActions): void => {
  const byKey = new Map(KEYS.flatMap(([keys, , action]) => keys.map((k) => [k, action] as const)));
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (document.querySelector('dialog[open]')) return;
    const action = byKey.get(e.key);
    if (!action) return;
    e.preventDefault();
    actions[action]();
  });
};
