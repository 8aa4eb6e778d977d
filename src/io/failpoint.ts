// Named points where a test can kill, fail or stall fettle between two durable steps, to prove that a crash
// anywhere leaves the user's files whole and their previous bytes reachable. Inert unless the process edge
// arms them from FETTLE_FAILPOINTS, e.g. `confirm.file-written=kill,stage.ref-written=throw,x=sleep:200`.
import { FettleError } from '../errors';

export const FAILPOINTS = [
  'record.blob-written', // direct: previous bytes hashed, no commit yet
  'record.commit-written', // direct: `before` commit written, ref not yet created
  'record.ref-written', // direct: ref created; the tool has not written yet
  'after.claimed', // PostToolUse: the tool call's link claimed, nothing recorded yet (the client cancels it here)
  'after.ref-written', // direct: the landed bytes recorded
  'stage.commits-written', // staged: before + proposal commits, no ref yet
  'stage.ref-written',
  'confirm.locked', // confirm: per-file lock held, nothing read yet
  'confirm.snapshot-written', // confirm: the user's bytes committed before a merge replaces them
  'confirm.file-written', // confirm: file replaced, ref still says pending
  'confirm.ref-updated', // confirm: ref says applied, the lock not yet released
  'discard.marker-written',
  'discard.refs-moved', // discard: ref moved, the lock not yet released
  'rollback.recorded', // rollback: current bytes recorded, file not yet replaced
  'rollback.file-written',
  'write.recorded', // `fettle write`: previous bytes recorded, file not yet replaced
  'write.file-written',
  'replace.temp-synced', // atomic replace: temp file written and fsynced, not yet renamed
  'replace.checked', // atomic replace: the file rechecked against what the caller planned on, not yet renamed
  'replace.renamed', // atomic replace: renamed, directory not yet fsynced
] as const;

export type Failpoint = (typeof FAILPOINTS)[number];

const armed = new Map<string, string>();

/** Called once, at the process edge. Unknown names are an error, so a typo cannot make a test pass vacuously. */
export const armFailpoints = (spec: string | undefined): void => {
  armed.clear();
  if (!spec) return;
  for (const item of spec.split(',').filter(Boolean)) {
    const [name = '', action = 'kill'] = item.split('=');
    if (!(FAILPOINTS as readonly string[]).includes(name)) {
      throw new FettleError('E_CONFIG', `FETTLE_FAILPOINTS names an unknown failpoint '${name}'.`, {
        hint: `Known: ${FAILPOINTS.join(', ')}.`,
      });
    }
    if (!/^(kill|throw|sleep:\d+)$/.test(action)) {
      throw new FettleError(
        'E_CONFIG',
        `FETTLE_FAILPOINTS action for ${name} must be kill, throw or sleep:<ms>, got '${action}'.`,
      );
    }
    armed.set(name, action);
  }
};

export const failpoint = async (name: Failpoint): Promise<void> => {
  const action = armed.get(name);
  if (!action) return;
  if (action === 'kill') process.kill(process.pid, 'SIGKILL');
  if (action === 'throw') throw new FettleError('E_INTERNAL', `failpoint ${name} fired`);
  const ms = Number(action.slice('sleep:'.length));
  await new Promise((r) => setTimeout(r, ms));
};
