// The page's one modal question: a <dialog> shown modally (focus stays in it, Esc cancels), answered by its two
// buttons; an optional checkbox's state comes back with a yes.
import { byId, el } from './dom';

export interface Ask {
  title: string;
  lines: string[];
  note?: string | undefined;
  yes: string;
  no: string;
  /** a checkbox's label, when the question has one */
  check?: string | undefined;
}

/** Resolves with the checkbox's state on yes, null on no or Esc. */
export const ask = (q: Ask): Promise<{ checked: boolean } | null> => {
  const dialog = byId<HTMLDialogElement>('ask');
  const box = el('input', { attrs: { type: 'checkbox', id: 'ask-check' } });
  const yes = el('button', { class: 'primary', text: q.yes, attrs: { type: 'button', id: 'ask-yes' } });
  const no = el('button', { text: q.no, attrs: { type: 'button', id: 'ask-no' } });
  dialog.replaceChildren(
    ...[
      el('h2', { text: q.title, attrs: { id: 'ask-title' } }),
      el(
        'ul',
        { class: 'plan' },
        q.lines.map((line) => el('li', { text: line })),
      ),
      q.check ? el('label', { class: 'check' }, [box, el('span', { text: q.check })]) : null,
      q.note ? el('p', { class: 'meta', text: q.note }) : null,
      el('div', { class: 'dialog-actions' }, [no, yes]),
    ].filter((x) => x !== null),
  );
  dialog.setAttribute('aria-labelledby', 'ask-title');
  return new Promise((resolve) => {
    const finish = (answer: { checked: boolean } | null) => {
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    yes.onclick = () => finish({ checked: box.checked });
    no.onclick = () => finish(null);
    dialog.onclose = () => finish(null);
    dialog.showModal();
    yes.focus();
  });
};
