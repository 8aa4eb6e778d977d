// Changes staged or decided elsewhere while the page is open: the agent keeps working, and a person may confirm
// in a terminal. Every few seconds while the tab is visible the page asks its server which changes wait in its
// scope, and says what differs from what it shows, with a button to load it. It never reloads by itself: the
// person may be in the middle of a comment.
import { api, Refused } from './api';
import { button, byId, el, plural } from './dom';

const EVERY_MS = 3000;

/** What differs between the ids shown and the ids waiting now, in words; null when nothing does. */
export const newsOf = (shown: Set<string>, waiting: string[]): string | null => {
  const added = waiting.filter((id) => !shown.has(id)).length;
  const now = new Set(waiting);
  const gone = [...shown].filter((id) => !now.has(id)).length;
  const parts = [
    ...(added ? [`${plural(added, 'new change')} to review`] : []),
    ...(gone ? [`${plural(gone, 'change')} decided elsewhere`] : []),
  ];
  return parts.length ? `${parts.join('; ')} since the page loaded.` : null;
};

let timer: ReturnType<typeof setInterval> | undefined;
let asking: Promise<unknown> = Promise.resolve();

/**
 * No more asking, once the question under way is answered: the review is being closed, and a request to a server
 * that stopped is an error in the browser's console.
 */
export const stopWatching = async (): Promise<void> => {
  clearInterval(timer);
  await asking.catch(() => undefined);
};

/**
 * Watches until the server stops answering. `shown`: the ids the page shows now, or null while the page itself is
 * changing them (an Apply), when an answer says nothing about anyone else; `load` shows what waits now.
 */
export const watchPending = (shown: () => Set<string> | null, load: () => Promise<void>): void => {
  const bar = byId('news');
  const text = el('span');
  bar.replaceChildren(
    text,
    button('Show them', () => {
      bar.hidden = true;
      void load();
    }),
  );
  clearInterval(timer);
  timer = setInterval(async () => {
    if (document.visibilityState !== 'visible') return;
    try {
      const question = api.pulse();
      asking = question;
      const { pending } = await question;
      const now = shown();
      if (now === null) return;
      const news = newsOf(now, pending);
      text.textContent = news ?? '';
      bar.hidden = news === null;
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      clearInterval(timer); // the server stopped: Apply says so when tried
    }
  }, EVERY_MS);
};
