// `fettle write <file>`: the write protocol for scripts. Content comes on stdin as bytes; fettle itself performs
// a direct write (atomically, after recording), or stages a large one and exits 3 (protocol/write/before.ts).
// `fettle write --from <dir> <file>...`: each file's new content is the file at the same relative path under
// <dir>, and the files are one changeset, staged or written together (protocol/write/write-many.ts).
import { isAbsolute, resolve } from 'node:path';
import { renderDirect } from '../core/direct-note';
import { renderNoop, renderSetStaged, renderSetWritten, renderStaged } from '../core/messages';
import { EXIT, FettleError } from '../errors';
import { invocationFor, selfCommand } from '../io/self';
import { readUserFile } from '../protocol/read';
import { recoverQuietly } from '../protocol/journal/recover';
import { inCommandSession } from '../protocol/select/command-session';
import { writeBytes } from '../protocol/write/write-bytes';
import { type ManyWritten, setFiles, writeMany } from '../protocol/write/write-many';
import type { Context, Origin } from '../protocol/context';
import { isLadderSession } from '../core/session-ladder';
import { contextFor, cwdFor, type Edge } from './edge';
import { shownFile, shownTarget } from '../core/shown-path';

/** The session is the caller's FETTLE_SESSION or the ladder's (inCommandSession), whose proposals stand side by side. */
const originOf = (ctx: Context): Origin => {
  const session = ctx.env.FETTLE_SESSION;
  return { tool: 'fettle write', session, ...(session && isLadderSession(session) ? { supersedes: false } : {}) };
};

export const write = async (
  edge: Edge,
  dir: string | undefined,
  files: string[],
  o: { from?: string; json?: boolean } = {},
): Promise<number> => {
  if (o.from !== undefined) return writeFrom(edge, dir, files, o.from, o.json);
  const [file] = files;
  if (file === undefined || files.length > 1)
    throw new FettleError('E_USAGE', 'fettle write takes one file, its content on stdin; several take --from <dir>.', {
      hint: 'e.g. `fettle write --from /tmp/generated src/a.ts src/b.ts` writes each from the same path under that dir.',
    });
  const ctx = await inCommandSession(contextFor(edge, dir));
  const bytes = await edge.io.stdin();
  const result = await writeBytes(ctx, file, bytes, originOf(ctx), (store) => recoverQuietly(ctx, store));
  const { target } = result;
  // Spelled for the caller's shell, which is in edge.cwd (not the -C directory).
  const invoke = invocationFor(selfCommand(ctx.env, edge.io.script), edge.cwd, target.store, target.realPath);
  if (o.json) {
    const where = { path: target.treePath, file: target.realPath };
    if (result.kind === 'noop') edge.io.out(JSON.stringify({ kind: 'noop', ...where }));
    else if (result.kind === 'ignored')
      edge.io.out(JSON.stringify({ kind: 'ignored', ...where, rule: result.ruleText }));
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
    edge.io.out(renderNoop(shownTarget(target)));
    return EXIT.ok;
  }
  if (result.kind === 'ignored') {
    edge.io.out(`fettle wrote ${shownTarget(target)} without recording it: policy rule ${result.ruleText} ignores it.`);
    return EXIT.ok;
  }
  if (result.kind === 'staged') {
    const { id, decision, diff, supersedes, thresholds, rule, check } = result;
    const { ttlSeconds } = ctx.config;
    const staged = { id, path: shownTarget(target), decision, diff, invoke, ttlSeconds, thresholds, supersedes, rule };
    edge.io.out(renderStaged({ ...staged, check, tool: 'write' }));
    return EXIT.staged;
  }
  const { id, decision: fields, shape } = result;
  edge.io.out(renderDirect({ id, path: shownTarget(target), fields, shape, invoke }));
  return EXIT.ok;
};

/** Each file's new content: the file at the same relative path under `sources`, which must exist. */
const readSources = async (sources: string, files: string[]): Promise<{ file: string; bytes: Buffer }[]> => {
  const writes: { file: string; bytes: Buffer }[] = [];
  for (const file of files) {
    if (isAbsolute(file))
      throw new FettleError('E_USAGE', `With --from, name files relative to the current directory, not ${file}.`);
    const source = resolve(sources, file);
    const bytes = await readUserFile(source);
    if (!bytes) throw new FettleError('E_USAGE', `${source} does not exist: --from names no new content for ${file}.`);
    writes.push({ file, bytes });
  }
  return writes;
};

/** The files of a changeset `write --from` recorded, for --json. */
const setFilesJson = (result: ManyWritten) =>
  result.files.map((f) => ({
    id: f.id,
    path: f.target.treePath,
    file: f.target.realPath,
    tier: f.decision.tier,
    added: f.decision.added,
    removed: f.decision.removed,
    reason: f.decision.reason,
  }));

/** Several files, each from the same relative path under `from`, as one changeset. */
const writeFrom = async (
  edge: Edge,
  dir: string | undefined,
  files: string[],
  from: string,
  json?: boolean,
): Promise<number> => {
  if (files.length === 0) throw new FettleError('E_USAGE', 'Name the files to write from --from <dir>.');
  const ctx = await inCommandSession(contextFor(edge, dir));
  const cwd = cwdFor(edge, dir);
  const writes = await readSources(resolve(cwd, from), files);
  const result = await writeMany(ctx, writes, originOf(ctx));
  const ignored = result.ignored.map((i) => ({ path: i.target.treePath, file: i.target.realPath, rule: i.ruleText }));
  const unrecorded = ignored.map(
    (i) => `fettle wrote ${shownFile(i)} without recording it: policy rule ${i.rule} ignores it.`,
  );
  if (result.kind === 'noop' || result.changeset === undefined) {
    const nothing = 'fettle: every file already has this exact content; nothing to record.';
    edge.io.out(
      json
        ? JSON.stringify({ kind: 'noop', ignored })
        : [...unrecorded, ...(ignored.length ? [] : [nothing])].join('\n'),
    );
    return EXIT.ok;
  }
  const first = result.files[0];
  const invoke = invocationFor(
    selfCommand(ctx.env, edge.io.script),
    edge.cwd,
    result.store,
    first?.target.realPath ?? cwd,
  );
  const message = { changeset: result.changeset, files: setFiles(result), invoke };
  if (json) {
    const files = setFilesJson(result);
    const next =
      result.kind === 'staged'
        ? { confirm: `${invoke} confirm ${result.changeset}`, discard: `${invoke} discard ${result.changeset}` }
        : { undo: `${invoke} rollback ${result.changeset}` };
    edge.io.out(JSON.stringify({ kind: result.kind, changeset: result.changeset, files, ignored, ...next }));
    return result.kind === 'staged' ? EXIT.staged : EXIT.ok;
  }
  if (result.kind === 'staged') {
    edge.io.out([renderSetStaged({ ...message, check: result.check }), ...unrecorded].join('\n'));
    return EXIT.staged;
  }
  edge.io.out([renderSetWritten(message), ...unrecorded].join('\n'));
  return EXIT.ok;
};
