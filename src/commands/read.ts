// `fettle read <file> [--offset N] [--limit N]`: a text file with line numbers, past the agent's Read limits.
import { resolve } from 'node:path';
import { classifyContent } from '../core/content';
import { numberedLines } from '../core/read-view';
import { FettleError } from '../errors';
import { readUserFile } from '../protocol/read';
import { shellQuote } from '../io/self';
import { cwdFor, invokeFor, type Edge } from './edge';
import { plural } from '../core/plural';

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
  o: { offset?: string; limit?: string; json?: boolean },
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
  const text = bytes.toString('utf8');
  const limit = count('--limit', o.limit, 1);
  const view = numberedLines(text, count('--offset', o.offset, 1), limit);
  const next = view.last < view.total ? view.last + 1 : null;
  if (o.json) {
    const lines = text.split('\n').slice(view.first - 1, Math.max(view.first - 1, view.last));
    edge.io.out(JSON.stringify({ file: path, total: view.total, first: view.first, last: view.last, next, lines }));
    return;
  }
  if (view.text) edge.io.out(view.text);
  if (next !== null) {
    const command = `${invokeFor(edge, dir)} read ${shellQuote(file)} --offset ${next}${limit === undefined ? '' : ` --limit ${limit}`}`;
    edge.io.err(`(lines ${view.first}-${view.last} of ${view.total}; next: ${command})`);
  } else if (view.total === 0) edge.io.err(`(${file} is empty)`);
  else if (view.first > view.total)
    edge.io.err(`(${file} has ${plural(view.total, 'line')}; line ${view.first} is past the end)`);
};
