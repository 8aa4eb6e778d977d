// A write protocol step that failed, as an outcome, for every agent's hook alike: before the tool writes, fettle
// blocks (nothing is lost; FETTLE_ON_ERROR=allow lets it through, unprotected, and says so); after, it warns.
import { clockFrom, loadConfig, type Env } from '../config';
import { toFettleError } from '../errors';
import type { Context } from '../protocol/context';
import type { HookEdge } from './edge';
import { residentParts } from './maintenance';
import { block, pass, warn, type HookOutcome } from './outcome';

/**
 * The context of a write step, or the outcome when fettle's configuration is invalid: a write about to happen is
 * blocked (nothing is lost), one that happened gets a warning.
 */
export const writeContext = (edge: HookEdge, cwd: string | undefined, before: boolean): Context | HookOutcome => {
  try {
    const config = loadConfig(edge.env);
    return { cwd: cwd ?? edge.cwd, env: edge.env, now: clockFrom(edge.env), config, ...residentParts(edge) };
  } catch (error) {
    const e = toFettleError(error);
    if (!before) return warn(`fettle: ${e.message}`);
    return block(
      `fettle blocked this write because its configuration is invalid; nothing was written. ${e.message}${e.hint ? ` ${e.hint}` : ''}`,
    );
  }
};

export const isOutcome = (value: Context | HookOutcome): value is HookOutcome => 'exitCode' in value;

/** Ends `text` with a full stop unless it already ends a sentence. */
export const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

const debug = (env: Env, error: unknown): string =>
  env.FETTLE_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : '';

/** `step`: before the tool writes, after it wrote, or after it failed; `file`: what the call writes, as named. */
export const writeFailure = (
  error: unknown,
  ctx: Context,
  step: 'before' | 'after' | 'failed',
  file: string,
): HookOutcome => {
  const e = toFettleError(error);
  if (e.code === 'E_FORBIDDEN_PATH') return pass(); // .git paths: not fettle's to handle, never written by it
  // Too large to hold: blocking would stop the agent from ever editing it; say plainly it goes unprotected.
  if (e.code === 'E_TOO_LARGE')
    return warn(`fettle: ${e.message} This write to ${file} is NOT protected: nothing was recorded.`);
  // A symlink loop or an overlong name: no file can be written there, and the tool will say so itself.
  const errno = (e.cause as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'ELOOP' || errno === 'ENAMETOOLONG') return pass();
  const detail = `${sentence(e.message)}${e.hint ? ` ${sentence(e.hint)}` : ''}${debug(ctx.env, error)}`;
  if (step === 'after')
    return warn(`fettle: the write to ${file} happened, but recording its result failed: ${detail}`);
  if (step === 'failed')
    return warn(`fettle: the write to ${file} failed, and settling its record failed too: ${detail}`);
  // A policy that cannot be read decides nothing: blocked until it is fixed, or let through unrecorded.
  if (e.code === 'E_POLICY') {
    if (ctx.config.onError === 'allow')
      return warn(
        `fettle: ${detail} This write to ${file} is NOT protected (FETTLE_ON_ERROR=allow): nothing was recorded.`,
      );
    return block(
      `fettle blocked this write because a policy file is invalid; nothing was written. ${detail} ` +
        'To let writes through unprotected until it is fixed, set FETTLE_ON_ERROR=allow.',
    );
  }
  if (ctx.config.onError === 'allow') {
    return warn(
      `fettle could not save the previous content of ${file}, so this write is NOT protected (FETTLE_ON_ERROR=allow): ${detail}`,
    );
  }
  return block(
    `fettle blocked this write because it could not save the previous content of ${file} first; nothing was written. ` +
      `Cause: ${detail} To let writes through unprotected until this is fixed, set FETTLE_ON_ERROR=allow.`,
  );
};
