// Which agent wrote each line of a file, from fettle's records: every landed change of the path, oldest first,
// walked through its bytes before and after (core/attribution.ts). Reads are batched: a few `cat-file` processes
// for any number of changes.
import { type AgentOrigin, linesOf, type Step, walkSteps } from '../core/attribution';
import { readObjects } from '../store/object-read';
import type { Store } from '../store/store';
import { chainsOf, replacedCommit } from './chains';
import type { Change } from './changes';

/** A path's recorded history as steps, oldest first, with the agent each change names (none: not an agent's). */
export type PathSteps = Map<string, Step<AgentOrigin>[]>;

const originOf = (c: Change): AgentOrigin | null =>
  c.fields.agent && !c.fields.reverts
    ? {
        agent: c.fields.agent,
        session: c.fields.session,
        turn: c.fields.turn,
        tool: c.fields.tool,
        change: c.id,
      }
    : null;

/** The changes that landed bytes on `paths` (in the store's trees), oldest first. */
const landed = (changes: readonly Change[], paths: ReadonlySet<string>): Change[] =>
  changes.filter((c) => c.state === 'applied' && paths.has(c.fields.path)).reverse();

/** Each path's steps: what each landed change of it replaced and wrote. */
export const recordedSteps = async (
  store: Store,
  changes: readonly Change[],
  paths: Iterable<string>,
): Promise<PathSteps> => {
  const wanted = landed(changes, new Set(paths));
  const out: PathSteps = new Map();
  if (wanted.length === 0) return out;
  const chains = await chainsOf(
    store,
    wanted.map((c) => c.tip),
  );
  const pairs: { change: Change; before: string }[] = [];
  wanted.forEach((change, i) => {
    try {
      pairs.push({ change, before: replacedCommit(chains[i] ?? { commits: [], base: null }) });
    } catch {
      // a chain fettle did not write (no record of the bytes it replaced): it attributes nothing
    }
  });
  const specs = pairs.flatMap(({ change, before }) => [
    `${before}:${change.fields.path}`,
    `${change.tip}:${change.fields.path}`,
  ]);
  const blobs = await readObjects(store, specs);
  pairs.forEach(({ change }, i) => {
    const [before, after] = [blobs[2 * i], blobs[2 * i + 1]];
    const steps = out.get(change.fields.path) ?? [];
    steps.push({
      before: linesOf(before?.type === 'blob' ? before.body : null),
      after: linesOf(after?.type === 'blob' ? after.body : null),
      origin: originOf(change),
    });
    out.set(change.fields.path, steps);
  });
  return out;
};

/** The origin of each line of `content` (the bytes of `path` now, or at a commit), by the records. */
export const recordedOrigins = (steps: PathSteps, path: string, content: Buffer | null): (AgentOrigin | null)[] => {
  const lines = linesOf(content);
  const own = steps.get(path);
  return own ? walkSteps(own, lines) : lines.map(() => null);
};
