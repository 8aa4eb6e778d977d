// The policy of one call beyond its path (format 2): the facts of a write's content, whether a policy needs them,
// and the policy of a Bash command line, which has no path and is asked before the command runs.
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import type { PolicyLayer, PolicyLayerName } from '../../core/policy';
import { addedLines } from '../../core/session-log';
import { repoNear } from '../../store/locate';
import type { Context } from '../context';
import { sessionHistory } from '../session-state';
import type { Target } from '../../store/store';
import { decidePolicy, PROJECT_POLICY, policyLayers, readLayer, type PathPolicy } from './policy';

/** The content a write would leave and the lines it adds, for `content` and `added` conditions: text only. */
export const contentFacts = (old: { bytes: Buffer } | null, next: Buffer): { content?: string; added?: string } => {
  if (next.length > CONTENT_BYTES || !isUtf8(next)) return {};
  const content = next.toString('utf8');
  const before = old && old.bytes.length <= CONTENT_BYTES && isUtf8(old.bytes) ? old.bytes.toString('utf8') : '';
  return { content, added: addedLines(before, content) };
};
/** Past this a write's content is not matched (as it is not diffed). */
const CONTENT_BYTES = 5 * 1024 * 1024;

/** Whether a rule of the layers looks at what a write would leave (so the policy is asked once that is known). */
export const needsContent = (layers: readonly PolicyLayer[]): boolean =>
  layers.some((l) => l.rules.some((r) => r.when?.content !== undefined || r.when?.added !== undefined));

/**
 * What the policy makes of a Bash command line about to run in `ctx.cwd`: the rules with no path (a command has
 * none) that hold for the tool `Bash` and the command; null when no policy file exists. The repository is found
 * from the files alone (no git process), and its parse comes from the cache the writes use.
 */
export const commandPolicy = async (ctx: Context, command: string, session?: string): Promise<PathPolicy | null> => {
  const repo = await repoNear(ctx.cwd);
  const files = [
    { layer: 'user' as const, path: ctx.config.userPolicy, display: ctx.config.userPolicy },
    ...(repo
      ? [{ layer: 'project' as const, path: join(repo.workTree, PROJECT_POLICY), display: PROJECT_POLICY }]
      : []),
  ];
  const cache = (layer: PolicyLayerName) => repo && join(repo.commonDir, 'fettle', 'cache', `policy-${layer}.json`);
  const layers = files.flatMap((f) => readLayer(f.path, f.layer, f.display, cache(f.layer) ?? undefined) ?? []);
  if (layers.length === 0) return null;
  const history = repo ? sessionHistory(repo, session) : undefined;
  return decidePolicy(ctx, layers, { tool: 'Bash', command, history });
};

/**
 * A write's policy: `early` before anything is read (as format 1 always was), unless a rule looks at the content;
 * then `later`, once the content is known. Either way the session's log is read only if a rule needs it.
 */
export const writePolicy = (ctx: Context, target: Target, call: { tool: string; session: string | undefined }) => {
  const layers = policyLayers(ctx, target.store);
  const facts = { path: target.treePath, tool: call.tool, history: sessionHistory(target.store, call.session) };
  const early = needsContent(layers) ? undefined : decidePolicy(ctx, layers, facts);
  const later = (content: { content?: string; added?: string }): PathPolicy =>
    early ?? decidePolicy(ctx, layers, { ...facts, ...content });
  return { early, later };
};
