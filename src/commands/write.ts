// `fettle write <file>`: the write protocol for scripts. Content comes on stdin as bytes; fettle itself performs
// a direct write (atomically, after recording), or stages a large one and exits 3 (protocol/write.ts).
import { renderDirect, renderNoop, renderStaged, summarize } from '../core/messages';
import { EXIT } from '../errors';
import { invocationFor, selfCommand } from '../io/self';
import { writeBytes } from '../protocol/write';
import { contextFor, type Edge } from './edge';

export const write = async (
  edge: Edge,
  dir: string | undefined,
  file: string,
  o: { json?: boolean } = {},
): Promise<number> => {
  const ctx = contextFor(edge, dir);
  const bytes = await edge.io.stdin();
  const result = await writeBytes(ctx, file, bytes, { tool: 'fettle write', session: ctx.env.FETTLE_SESSION });
  const { target } = result;
  // Spelled for the caller's shell, which is in edge.cwd (not the -C directory).
  const invoke = invocationFor(selfCommand(ctx.env, edge.io.script), edge.cwd, target.store, target.realPath);
  if (o.json) {
    const where = { path: target.treePath, file: target.realPath };
    if (result.kind === 'noop') edge.io.out(JSON.stringify({ kind: 'noop', ...where }));
    else {
      const { id, decision } = result;
      const next =
        result.kind === 'staged'
          ? { confirm: `${invoke} confirm ${id}`, discard: `${invoke} discard ${id}` }
          : { undo: `${invoke} rollback ${id}` };
      const { added, removed, reason } = decision;
      edge.io.out(JSON.stringify({ kind: result.kind, id, ...where, added, removed, reason, ...next }));
    }
    return result.kind === 'staged' ? EXIT.staged : EXIT.ok;
  }
  if (result.kind === 'noop') {
    edge.io.out(renderNoop(target.treePath));
    return EXIT.ok;
  }
  if (result.kind === 'staged') {
    const { id, decision, diff } = result;
    const { ttlSeconds } = ctx.config;
    const staged = { id, path: target.treePath, decision, diff, invoke, ttlSeconds, thresholds: ctx.config };
    edge.io.out(renderStaged({ ...staged, tool: 'write' }));
    return EXIT.staged;
  }
  const { reason, added, removed } = result.decision;
  edge.io.out(renderDirect(result.id, target.treePath, summarize(reason, added, removed), invoke));
  return EXIT.ok;
};
