// fettle_write and fettle_write_files: fettle performs the write itself (protocol/write/before.ts's writeBytes, as
// `fettle write` does; write-many.ts for a changeset). The model is answered with the texts the hook gives, the
// staged diff capped the same way, and the tool to call next.
import { renderDirect } from '../core/direct-note';
import { renderNoop, renderSetStaged, renderSetWritten, renderStaged, sizeText, stagedDiff } from '../core/messages';
import { invocationFor, selfCommand } from '../io/self';
import { recoverQuietly } from '../protocol/journal/recover';
import { wroteFiles } from '../protocol/read-baselines';
import type { StagedWrite } from '../protocol/write/before';
import { writeBytes } from '../protocol/write/write-bytes';
import { setFiles, writeMany } from '../protocol/write/write-many';
import { resolve } from 'node:path';
import type { Context } from '../protocol/context';
import type { Store } from '../store/store';
import { type Args, contextFor, type McpEdge, originOf, text, type ToolResult } from './edge';
import { shownTarget } from '../core/shown-path';

/** A printed command spelled for the user's shell in the server's directory, naming the store when it is elsewhere. */
const invokeFor = (edge: McpEdge, store: Store, file: string): string =>
  invocationFor(selfCommand(edge.env, edge.script), edge.cwd, store, file);

/** The same actions through this server's tools, for a client with no shell of its own. */
const toolCalls = (edge: McpEdge, store: Store, calls: [tool: string, id: string][]): string => {
  const where =
    store.kind === 'repo' && store.workTree !== edge.cwd ? `, "directory": ${JSON.stringify(store.workTree)}` : '';
  const key = (tool: string) => (tool === 'fettle_rollback' ? 'targets' : 'ids');
  return calls.map(([tool, id]) => `${tool} with {"${key(tool)}": ["${id}"]${where}}`).join('; ');
};
const viaTools = (edge: McpEdge, store: Store, calls: [tool: string, id: string][]): string =>
  `Through this server: ${toolCalls(edge, store, calls)}.`;

/** A write a policy `ignore` rule leaves unrecorded, as `fettle write` says it. */
const unrecorded = (path: string, rule: string): string =>
  `fettle wrote ${path} without recording it: policy rule ${rule} ignores it.`;

/**
 * Under FETTLE_REVIEW=human a staged change is a person's to apply: the model is shown the change, told it cannot
 * apply it, and given nothing to run but a discard.
 */
const personStaged = (s: StagedWrite, invoke: string, edge: McpEdge): string => {
  const { counts, why } = sizeText(s.decision, s.thresholds, s.rule);
  const path = shownTarget(s.target);
  return [
    `fettle held this write for review: nothing was written to ${path}.`,
    `Staged change ${s.id}: ${counts}; staged because ${s.check?.staged ? `the command of policy rule ${s.rule} failed` : why}.`,
    ...(s.check ? [s.check.text] : []),
    `FETTLE_REVIEW=human is set, so only a person may apply it, from their own terminal: ${invoke} review ${s.id}, then ${invoke} confirm ${s.id}. fettle_confirm refuses it.`,
    `Do not retry the write. Tell the user that this change to ${path} waits for their review; to withdraw it: ${toolCalls(edge, s.target.store, [['fettle_discard', s.id]])}.`,
    ...stagedDiff(s.id, s.diff),
  ].join('\n');
};

/**
 * What this session wrote is what it has seen of those files: fettle_read compares a later read with it, so a
 * write then a read sends no stale diff. A file whose real path differs from the path given (a link) keeps its
 * older baseline: its next read is diffed against bytes the session did see, never claimed unchanged.
 */
const seen = (edge: McpEdge, ctx: Context, store: Store, files: { realPath: string; bytes: Buffer }[]) =>
  wroteFiles(ctx.config.dataDir, edge.conversation, store, { files, at: ctx.now().getTime() }).catch((error: unknown) =>
    edge.log(`fettle: the read baseline was not moved: ${String(error)}`),
  );

export const writeFile = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const ctx = contextFor(edge, {});
  const bytes = Buffer.from(args.content as string, 'utf8');
  const origin = originOf(edge, ctx, 'fettle_write');
  const result = await writeBytes(ctx, args.path as string, bytes, origin, (store) => recoverQuietly(ctx, store));
  const { target } = result;
  if (result.kind !== 'staged') await seen(edge, ctx, target.store, [{ realPath: target.realPath, bytes }]);
  const invoke = invokeFor(edge, target.store, target.realPath);
  if (result.kind === 'noop') return text(renderNoop(shownTarget(target)));
  if (result.kind === 'ignored') return text(unrecorded(shownTarget(target), result.ruleText));
  if (result.kind === 'written') {
    const { id, decision: fields, shape } = result;
    const line = renderDirect({ id, path: shownTarget(target), fields, shape, invoke });
    return text(`${line}\n${viaTools(edge, target.store, [['fettle_rollback', result.id]])}`);
  }
  if (ctx.config.review === 'human') return text(personStaged(result, invoke, edge));
  const { id, decision, diff, supersedes, thresholds, rule, check } = result;
  const staged = renderStaged({
    check,
    id,
    path: shownTarget(target),
    decision,
    diff,
    invoke,
    ttlSeconds: ctx.config.ttlSeconds,
    thresholds,
    supersedes,
    rule,
    tool: 'write',
  });
  const tools = viaTools(edge, target.store, [
    ['fettle_confirm', id],
    ['fettle_discard', id],
  ]);
  // The tools line goes with the commands, before the diff.
  const [head = '', ...rest] = staged.split('\n\n');
  return text([`${head}\n${tools}`, ...rest].join('\n\n'));
};

export const writeFiles = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const ctx = contextFor(edge, {});
  const files = (args.files as { path: string; content: string }[]).map((f) => ({
    file: f.path,
    bytes: Buffer.from(f.content, 'utf8'),
  }));
  const result = await writeMany(ctx, files, originOf(edge, ctx, 'fettle_write_files'));
  const ignored = result.ignored.map((i) => unrecorded(shownTarget(i.target), i.ruleText));
  if (result.kind === 'noop' || result.changeset === undefined)
    return text(
      ignored.length > 0 ? ignored.join('\n') : 'fettle: every file already has this exact content; nothing to record.',
    );
  const first = result.files[0];
  const invoke = invokeFor(edge, result.store, first?.target.realPath ?? edge.cwd);
  const message = { changeset: result.changeset, files: setFiles(result), invoke };
  if (result.kind === 'written') {
    const given = new Map(files.map((f) => [resolve(edge.cwd, f.file), f.bytes]));
    const wrote = result.files.flatMap(({ target: t }) => {
      const bytes = given.get(t.realPath);
      return bytes ? [{ realPath: t.realPath, bytes }] : [];
    });
    await seen(edge, ctx, result.store, wrote);
    const tools = viaTools(edge, result.store, [['fettle_rollback', result.changeset]]);
    return text([renderSetWritten(message), tools, ...ignored].join('\n'));
  }
  const staged = renderSetStaged({ ...message, check: result.check });
  if (ctx.config.review === 'human')
    return text(
      [
        ...staged.split('\n').slice(0, -3),
        `FETTLE_REVIEW=human is set, so only a person may apply them, from their own terminal: ${invoke} review ${result.changeset}, then ${invoke} confirm ${result.changeset}. fettle_confirm refuses them. Do not retry the write; tell the user these changes wait for their review.`,
        ...ignored,
      ].join('\n'),
    );
  const tools = viaTools(edge, result.store, [
    ['fettle_confirm', result.changeset],
    ['fettle_discard', result.changeset],
  ]);
  return text([staged, tools, ...ignored].join('\n'));
};
