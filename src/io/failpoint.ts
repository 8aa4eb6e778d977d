// Named points where a test can kill, fail or stall fettle between two durable steps, to prove that a crash
// anywhere leaves the user's files whole and their previous bytes reachable. Inert unless the process edge
// arms them from FETTLE_FAILPOINTS, e.g. `confirm.file-written=kill,stage.ref-written=throw,x=sleep:200`; a point
// passed once per file fires at its nth pass with `@n` (`confirm.file-written=kill@2`: after the second file).
// `vanish` deletes the temporary files a point names, as another process would (`git gc --prune=now`).
import { unlinkSync } from 'node:fs';
import { FettleError } from '../errors';

export const FAILPOINTS = [
  'record.blob-written', // direct: previous bytes hashed, no commit yet
  'record.commit-written', // direct: `before` commit written, ref not yet created
  'record.beside-written', // direct: the tool call's link written, while the ref is made (maybe not yet)
  'record.ref-written', // direct: ref created; the tool has not written yet
  'after.claimed', // PostToolUse: the tool call's link claimed, nothing recorded yet (the client cancels it here)
  'after.ref-written', // direct: the landed bytes recorded
  'stage.commits-written', // staged: before + proposal commits, no ref yet
  'stage.ref-written',
  'stage.superseding', // resident: the newer proposal staged and answered; the older one not yet discarded
  'confirm.locked', // confirm: per-file lock held, nothing read yet
  'confirm.snapshot-written', // confirm: the user's bytes committed before a merge replaces them
  'confirm.prepared', // confirm: every file planned, applied commits written, ref transaction locked; no journal
  'confirm.journal-written', // confirm: the journal is durable, no file replaced yet
  'confirm.file-written', // confirm: a file replaced (once per file), refs still say pending
  'confirm.ref-updated', // confirm: refs say applied, journal and worktrees not yet removed
  'discard.marker-written',
  'discard.refs-moved', // discard: ref moved, the lock not yet released
  'rollback.recorded', // rollback: current bytes recorded, file not yet replaced
  'rollback.file-written',
  'write.recorded', // `fettle write`: previous bytes recorded, file not yet replaced
  'write.file-written',
  'bash.snapshot-read', // Bash PreToolUse: status run and the listed files kept as blobs, the snapshot not saved
  'bash.changes-found', // Bash PostToolUse (or the end of the turn): the snapshot claimed, changes found, none recorded
  'bash.befores-recorded', // Bash record: every file's previous bytes recorded (one ref transaction), what landed not yet
  'bash.recorded', // Bash PostToolUse (or the end of the turn): the changes recorded, the snapshot not yet released
  'pack.temp-synced', // objects: a pack and its index written and synced under temporary names, not yet renamed
  'pack-refs.locked', // maintenance: packed-refs.lock taken with its owner record, nothing written into it
  'pack-refs.renamed', // maintenance: packed-refs holds fettle's refs, their loose files not yet deleted
  'replace.temp-synced', // atomic replace: temp file written and fsynced, not yet renamed
  'replace.checked', // atomic replace: the file rechecked against what the caller planned on, not yet renamed
  'replace.renamed', // atomic replace: renamed, directory not yet fsynced
] as const;

export type Failpoint = (typeof FAILPOINTS)[number];

/** The points that name files `vanish` can delete. */
const VANISHING: readonly string[] = ['pack.temp-synced'];

/** `at`: the pass it fires at; undefined fires at every pass. */
const armed = new Map<string, { action: string; at: number | undefined }>();
const passes = new Map<string, number>();

/** Called once, at the process edge. Unknown names are an error, so a typo cannot make a test pass vacuously. */
export const armFailpoints = (spec: string | undefined): void => {
  armed.clear();
  passes.clear();
  if (!spec) return;
  for (const item of spec.split(',').filter(Boolean)) {
    const [name = '', given = 'kill'] = item.split('=');
    const [action = 'kill', at] = given.split('@');
    if (!(FAILPOINTS as readonly string[]).includes(name)) {
      throw new FettleError('E_CONFIG', `FETTLE_FAILPOINTS names an unknown failpoint '${name}'.`, {
        hint: `Known: ${FAILPOINTS.join(', ')}.`,
      });
    }
    const known = /^(kill|throw|sleep:\d+)$/.test(action) || (action === 'vanish' && VANISHING.includes(name));
    if (!known || (at !== undefined && !/^[1-9]\d{0,5}$/.test(at))) {
      const vanish = VANISHING.includes(name) ? ', vanish' : '';
      throw new FettleError(
        'E_CONFIG',
        `FETTLE_FAILPOINTS action for ${name} must be kill, throw${vanish} or sleep:<ms>, optionally @<n>, got '${given}'.`,
      );
    }
    armed.set(name, { action, at: at === undefined ? undefined : Number(at) });
  }
};

/** `temps`: the temporary files this point has written, which `vanish` deletes. */
export const failpoint = async (name: Failpoint, temps: string[] = []): Promise<void> => {
  const arm = armed.get(name);
  if (!arm) return;
  const pass = (passes.get(name) ?? 0) + 1;
  passes.set(name, pass);
  if (arm.at !== undefined && pass !== arm.at) return;
  const { action } = arm;
  if (action === 'kill') process.kill(process.pid, 'SIGKILL');
  if (action === 'throw') throw new FettleError('E_INTERNAL', `failpoint ${name} fired`);
  if (action === 'vanish') {
    for (const temp of temps) unlinkSync(temp);
    return;
  }
  const ms = Number(action.slice('sleep:'.length));
  // Said, so a test can act while the process waits here rather than guess when it got here.
  process.stderr.write(`failpoint ${name} sleeping ${ms} ms\n`);
  await new Promise((r) => setTimeout(r, ms));
};
