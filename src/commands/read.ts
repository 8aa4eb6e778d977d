// `fettle read <file> [--offset N] [--limit N]`: a text file with line numbers, past the agent's Read limits.
import { resolve } from 'node:path';
import { classifyContent } from '../core/content';
import { numberedLines } from '../core/read-view';
import { FettleError } from '../errors';
import { readUserFile } from '../protocol/read';
import { cwdFor, type Edge } from './edge';

const count = (name: string, value: string | undefined, min: number): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new FettleError('E_USAGE', `${name} must be a whole number of at least ${min}, got '${value}'.`);
  return Number(value);
};

export const read = async (
  edge: Edge,
  dir: string | undefined,
  file: string,
  o: { offset?: string; limit?: string },
): Promise<void> => {
  const path = resolve(cwdFor(edge, dir), file);
  // EISDIR and friends carry no path of their own; the message must name it.
  const bytes = await readUserFile(path).catch((error: NodeJS.ErrnoException) => {
    throw Object.assign(error, { path: error.path ?? path });
  });
  if (!bytes) throw new FettleError('E_IO', `no such file or directory (${path})`);
  if (classifyContent(bytes) === 'binary') {
    throw new FettleError('E_NOT_TEXT', `${path} is not UTF-8 text; fettle read prints text files only.`);
  }
  const view = numberedLines(bytes.toString('utf8'), count('--offset', o.offset, 1), count('--limit', o.limit, 1));
  if (view.text) edge.io.out(view.text);
  if (view.last < view.total)
    edge.io.err(`(lines ${view.first}-${view.last} of ${view.total}; next: --offset ${view.last + 1})`);
};
