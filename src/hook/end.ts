// Stop (the end of a turn) and SessionEnd: this session's records whose PostToolUse never came are settled from
// the disk (protocol/history/settle-session.ts). Never blocks: exit 2 on Stop would keep the model going.
import { clockFrom, loadConfig } from '../config';
import { toFettleError } from '../errors';
import type { Context } from '../protocol/context';
import { settleSessionRecords } from '../protocol/history/settle-session';
import type { HookEdge } from './edge';
import { pass, warn, type HookOutcome } from './outcome';
import type { EndPayload } from './payload';

export const settleSession = async (end: EndPayload, edge: HookEdge): Promise<HookOutcome> => {
  const session = end.session;
  if (!session) return pass();
  try {
    const ctx: Context = {
      cwd: end.cwd ?? edge.cwd,
      env: edge.env,
      now: clockFrom(edge.env),
      config: loadConfig(edge.env),
      resident: edge.resident,
      background: edge.background,
    };
    await settleSessionRecords(ctx, {
      session,
      event: end.event,
      transcript: end.transcript,
      callsOver: end.callsOver,
    });
    return pass();
  } catch (error) {
    const e = toFettleError(error);
    return warn(`fettle: could not settle this session's open records: ${e.message}${e.hint ? ` ${e.hint}` : ''}`);
  }
};
