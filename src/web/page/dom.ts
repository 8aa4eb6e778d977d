// Elements made with the DOM's own calls: text is always set as text (textContent), never parsed as markup, so a
// file's or a prompt's characters can never become elements or run.

type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string | undefined;
  text?: string | undefined;
  /** attributes, set as given (aria-*, data-*, type, title...); undefined ones are left out */
  attrs?: Record<string, string | undefined> | undefined;
  on?: { [K in keyof HTMLElementEventMap]?: (e: HTMLElementEventMap[K]) => void } | undefined;
}

export const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) if (v !== undefined) node.setAttribute(k, v);
  for (const [type, fn] of Object.entries(props.on ?? {})) node.addEventListener(type, fn as EventListener);
  for (const c of children) if (c) node.append(c);
  return node;
};

/** A real button with a visible label; `aria` names it fully where the label alone is too short. */
export const button = (label: string, onClick: () => void, o: { class?: string; title?: string; aria?: string } = {}) =>
  el('button', {
    class: o.class,
    text: label,
    attrs: { type: 'button', title: o.title, 'aria-label': o.aria },
    on: { click: onClick },
  });

export const byId = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
};

/** Says a line to screen readers through the page's live region. */
export const announce = (text: string): void => {
  const live = document.getElementById('live');
  if (live) live.textContent = text;
};

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
