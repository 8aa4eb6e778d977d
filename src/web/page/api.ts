// The page's server, as calls: same-origin JSON, the cookie sent by the browser. A refusal comes back as the
// server's own words (what happened, what to do); a server that is gone says so.
import type { ReviewChange, ReviewData } from '../../protocol/review/review-data';
import type { Draft } from '../drafts';

export type { Draft };
export type CommentDraft = Extract<Draft, { kind: 'comment' }>;

export interface Refusal {
  code: string;
  message: string;
  hint: string | null;
}

export class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** One decided change of an Apply, as the server sends it. */
export interface DecidedJson {
  change: { id: string; fields: { path: string } };
  outcome: 'confirmed' | 'discarded';
  conflicts?: number;
  picked?: { keep: number[]; drop: number[]; rest: number[]; count: number };
  /** the new pending change holding the hunks left undecided */
  remainder?: string;
}

const gone: Refusal = {
  code: 'E_PAGE',
  message: 'The review server is not answering: it stopped (Done, or a quiet period) or was ended.',
  hint: 'Run `fettle review --web` again; decisions not applied were not kept.',
};

const call = async <T>(path: string, body?: unknown): Promise<T> => {
  let res: Response;
  try {
    res = await fetch(
      path,
      body === undefined
        ? { credentials: 'same-origin' }
        : {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          },
    );
  } catch {
    throw new Refused(gone);
  }
  const text = await res.text();
  let json: { ok?: boolean; error?: Refusal } & T;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Refused({ code: `HTTP_${res.status}`, message: text.trim() || `HTTP ${res.status}`, hint: null });
  }
  if (json.ok !== true) throw new Refused(json.error ?? { code: 'E_PAGE', message: 'Refused.', hint: null });
  return json;
};

export const api = {
  review: () => call<{ review: ReviewData; drafts: Draft[] }>('/api/review'),
  change: (id: string) => call<{ change: ReviewChange }>(`/api/change/${encodeURIComponent(id)}`),
  pulse: () => call<{ pending: string[] }>('/api/pulse'),
  draft: (d: Draft) => call<{ drafts: Draft[] }>('/api/draft', d),
  /** `expired`: the person applies changes past their time limit too (they were shown as expired) */
  apply: (withConflicts: boolean, expired: boolean) =>
    call<{ outcome: { decided: DecidedJson[] } }>('/api/apply', { withConflicts, expired }),
  close: () => call<unknown>('/api/close', {}),
};
