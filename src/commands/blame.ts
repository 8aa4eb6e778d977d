// `fettle blame <file> [--json]`: for each line of the working file, who wrote it: an agent (which, its session,
// turn, tool and change), a person (not committed yet), or a commit, with git blame's answer for every committed
// line (protocol/blame.ts).
import type { BlameLine } from '../protocol/blame';
import { blameFile } from '../protocol/blame';
import { readUserFile } from '../protocol/read';
import { openTarget } from '../protocol/select/open';
import { FettleError } from '../errors';
import { contextFor, type Edge } from './edge';

const utf8 = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

const lineJson = (l: BlameLine) => {
  const a = l.author;
  const git = l.git && {
    commit: l.git.commit,
    line: l.git.origLine,
    path: utf8(l.git.path),
    author: utf8(l.git.author),
    time: l.git.time,
    summary: utf8(l.git.summary),
  };
  const agent =
    a.by === 'agent'
      ? {
          agent: a.origin.agent,
          session: a.origin.session ?? null,
          turn: a.origin.turn ?? null,
          tool: a.origin.tool ?? null,
          change: a.origin.change,
          source: a.source,
        }
      : {};
  return { line: l.line, by: a.by, ...agent, git, text: utf8(l.bytes) };
};

/** The left column: `claude s:4f2a3b1c t2 Edit k3x9q2mz`, `a1b2c3d4 Test User 2026-01-01`, or `(not committed)`. */
const whoText = (l: BlameLine): string => {
  const a = l.author;
  if (a.by === 'agent') {
    const o = a.origin;
    const parts = [o.agent, o.session ? `s:${o.session.slice(0, 8)}` : '', o.turn ? `t${o.turn}` : '', o.tool ?? ''];
    return [...parts.filter(Boolean), o.change, a.source === 'note' ? '(note)' : ''].filter(Boolean).join(' ');
  }
  if (!l.git) return '(not committed)';
  const date = new Date(l.git.time * 1000).toISOString().slice(0, 10);
  return `${(l.git.commit ?? '').slice(0, 8)} ${utf8(l.git.author)} ${date}`;
};

export const blame = async (edge: Edge, dir: string | undefined, file: string, o: { json?: boolean }) => {
  const ctx = contextFor(edge, dir);
  const target = await openTarget(ctx, file);
  const content = await readUserFile(target.realPath);
  if (content === null)
    throw new FettleError('E_NOT_FOUND', `${file}: no such file.`, {
      hint: 'Give the path of a file in the work tree.',
    });
  const lines = await blameFile(ctx, target, content);
  if (o.json) {
    edge.io.out(JSON.stringify({ path: target.treePath, lines: lines.map(lineJson) }));
    return;
  }
  const who = lines.map(whoText);
  const width = Math.max(0, ...who.map((w) => w.length));
  const numbers = String(lines.length).length;
  edge.io.page(
    lines
      .map((l, i) => `${(who[i] ?? '').padEnd(width)} ${String(l.line).padStart(numbers)}) ${utf8(l.bytes)}`)
      .join('\n'),
  );
};
