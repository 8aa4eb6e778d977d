// A person's feedback reaches the agent session that made the change (protocol/record/feedback.ts): taken by the
// session's next hook call that can carry context to the model (a prompt, a tool's result), added to what fettle
// answers there, and gone once answered. A call that ends in an error keeps it queued for the next one.
import { loadConfig } from '../config';
import { takeFeedback } from '../protocol/record/feedback-queue';
import type { HookEdge } from './edge';
import type { HookOutcome } from './outcome';

// What is queued says itself who it is from: a person's review, or fettle's own note of a confirm (confirm-feedback.ts).
const HEADER = '[fettle: news of your changes]';

/** The text as the model reads it, after whatever else fettle said. */
export const feedbackNote = (text: string): string => `${HEADER}\n${text}`;

/** The session's queued feedback, taken (opencode's adapter adds it to a tool's output itself). */
export const takeNote = async (session: string | undefined, edge: HookEdge) => {
  try {
    const taken = await takeFeedback(loadConfig(edge.env).dataDir, session);
    return taken && { text: feedbackNote(taken.text), release: taken.release };
  } catch {
    return null;
  }
};

/** `out`, with the session's queued feedback added to its context; `out` unchanged when there is none. */
export const withFeedback = async (
  out: HookOutcome,
  event: string,
  session: string | undefined,
  edge: HookEdge,
): Promise<HookOutcome> => {
  if (!session || out.exitCode !== 0) return out;
  let dataDir: string;
  try {
    dataDir = loadConfig(edge.env).dataDir;
  } catch {
    return out; // the call's own answer says what is wrong with the configuration
  }
  const taken = await takeFeedback(dataDir, session).catch(() => null);
  if (!taken) return out;
  const text = feedbackNote(taken.text);
  let answer: Record<string, unknown> = {};
  try {
    answer = out.stdout ? (JSON.parse(out.stdout) as Record<string, unknown>) : {};
  } catch {
    return out; // not fettle's JSON: leave it, and the feedback queued
  }
  const specific = (answer.hookSpecificOutput ?? {}) as Record<string, unknown>;
  const before = typeof specific.additionalContext === 'string' ? `${specific.additionalContext}\n\n` : '';
  answer.hookSpecificOutput = { ...specific, hookEventName: event, additionalContext: `${before}${text}` };
  await taken.release();
  return { ...out, stdout: JSON.stringify(answer) };
};
