// `fettle write <file>`: the hook's protocol for scripts. Content comes on stdin as bytes; fettle itself
// performs a direct write (atomically, after recording), or stages a large one and exits 3.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renderDirect, renderNoop, renderStaged, summarize } from '../core/messages';
import { EXIT, FettleError } from '../errors';
import { NotDurableError, readDisk, replaceFile } from '../io/atomic-write';
import { failpoint } from '../io/failpoint';
import { withLock } from '../io/lock';
import { invocationFor, selfCommand } from '../io/self';
import { fileLockPath } from '../protocol/paths';
import { planWrite } from '../protocol/plan';
import { retainQuietly } from '../protocol/retention';
import { fieldsOf, recordAfter, recordBefore, stage } from '../protocol/record';
import { locateTarget } from '../store/locate';
import { contextFor, type Edge } from './edge';

export const write = async (edge: Edge, dir: string | undefined, file: string): Promise<number> => {
  const ctx = contextFor(edge, dir);
  const bytes = await edge.io.stdin();
  const target = await locateTarget(file, ctx.cwd, ctx.env, ctx.config.dataDir);
  // Spelled for the caller's shell, which is in edge.cwd (not the -C directory).
  const invoke = invocationFor(selfCommand(ctx.env, edge.io.script), edge.cwd, target.store, target.realPath);
  const origin = { tool: 'fettle write', session: ctx.env.FETTLE_SESSION };
  const code = await withLock(fileLockPath(target.store, target.treePath), async () => {
    const plan = await planWrite(ctx, target, await readDisk(target.realPath), bytes);
    const d = plan.decision;
    if (d.tier === 'noop') {
      edge.io.out(renderNoop(target.treePath));
      return EXIT.ok;
    }
    if (d.tier === 'staged') {
      const { id } = await stage(ctx, plan, origin);
      edge.io.out(
        renderStaged({
          id,
          path: target.treePath,
          decision: d,
          diff: plan.diff,
          invoke,
          ttlSeconds: ctx.config.ttlSeconds,
          thresholds: ctx.config,
          tool: 'write',
        }),
      );
      return EXIT.staged;
    }
    const before = await recordBefore(ctx, plan.target, plan.old, fieldsOf(plan, origin), plan.stored?.old);
    await failpoint('write.recorded');
    // The previous bytes are in git; make sure they are still what is on disk before replacing them.
    const now = await readDisk(target.realPath);
    const unchanged = now === null ? plan.old === null : plan.old !== null && now.bytes.equals(plan.old.bytes);
    if (!unchanged) {
      throw new FettleError(
        'E_CONFLICT',
        `${target.realPath} changed while fettle was recording it; nothing was written.`,
        { hint: 'Run the write again.' },
      );
    }
    await mkdir(dirname(target.realPath), { recursive: true });
    try {
      await replaceFile(target.realPath, bytes, { createOnly: plan.old === null, expect: plan.old?.bytes });
    } catch (error) {
      // Replaced but not durable: the bytes did land, so history says so if it can (the disk is failing, so
      // recording may fail too); the error reported is the first one.
      if (error instanceof NotDurableError) {
        await readDisk(target.realPath)
          .then((landed) => recordAfter(ctx, target.store, before.id, before, landed))
          .catch(() => undefined);
      }
      throw error;
    }
    await failpoint('write.file-written');
    await recordAfter(ctx, target.store, before.id, before, await readDisk(target.realPath));
    edge.io.out(renderDirect(before.id, target.treePath, summarize(d.reason, d.added, d.removed), invoke));
    return EXIT.ok;
  });
  await retainQuietly(ctx, target.store);
  return code;
};
