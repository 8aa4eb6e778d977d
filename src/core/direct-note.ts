// The one line after a direct write, as the design's small-change line has it: the file as the write left it
// (its size, and its line count when it is text), the change (`+added -removed ~modified`, or why it has no
// counts) and the command that undoes it. The agent pays per token, so it stays one short line.
import { byteSize } from './byte-size';
import { classifyContent, countLines, countLinesIn, MAX_DIFF_BYTES } from './content';
import { uncountedText } from './messages';
import { plural } from './plural';

/** What a direct write left, as its note says it. */
export interface WriteShape {
  /** the file's size after the write; null: the write left no file */
  bytes: number | null;
  /** its lines, when it is text */
  lines?: number | undefined;
  /** of the lines added and removed, how many were modified in place (core/diff.ts), when a diff counted them */
  modified?: number | undefined;
}

/** Lines of text, UTF-8 or UTF-16LE (FF FE, decoded as the decision counts it); none for other content. */
const linesIn = (bytes: Buffer): number | undefined => {
  const kind = classifyContent(bytes);
  if (kind === 'text') return countLinesIn(bytes);
  const utf16 = bytes.length % 2 === 0 && bytes[0] === 0xff && bytes[1] === 0xfe;
  return kind === 'binary' && utf16 && bytes.length <= MAX_DIFF_BYTES
    ? countLines(bytes.toString('utf16le', 2))
    : undefined;
};

/** The shape of the bytes a write left (null: no file). */
export const shapeOf = (landed: Buffer | null, modified?: number): WriteShape => ({
  bytes: landed ? landed.length : null,
  lines: landed ? linesIn(landed) : undefined,
  modified,
});

export interface DirectNote {
  id: string;
  path: string;
  /** the record's reason and line counts */
  fields: { reason?: string | undefined; added?: number | undefined; removed?: number | undefined };
  shape: WriteShape;
  /** how to invoke fettle so the command runs as printed */
  invoke: string;
  /** another agent session changed the file since this one last wrote it: which, with its change, and when */
  since?: { session: string; change: string; at: Date } | undefined;
}

/** ` Note: another agent session (B) changed a.txt at 2026-…Z (change …) since this session last wrote it; …` */
const sinceNote = (m: DirectNote): string => {
  if (!m.since) return '';
  const { session, change, at } = m.since;
  const when = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return ` Note: another agent session (${session}) changed ${m.path} at ${when} (change ${change}) since this session last wrote it; make sure this write kept its work.`;
};

/** `1.2 KB, 40 lines, +1 -1 ~1`; `11 B, 1 line, new file`; `deleted, +0 -2 ~0`. */
const summary = ({ fields, shape }: Pick<DirectNote, 'fields' | 'shape'>): string => {
  const { reason, added, removed } = fields;
  const inPlace = shape.modified === undefined ? '' : ` ~${shape.modified}`;
  const change = uncountedText(reason, added) ?? `+${added} -${removed ?? 0}${inPlace}`;
  const size = shape.bytes === null ? 'deleted' : byteSize(shape.bytes);
  return [size, ...(shape.lines === undefined ? [] : [plural(shape.lines, 'line')]), change].join(', ');
};

/** One line after a direct write: what changed and how to undo it. */
export const renderDirect = (m: DirectNote): string =>
  `fettle recorded ${m.path} (${summary(m)}) as ${m.id}; undo with: ${m.invoke} rollback ${m.id}${m.since ? '.' : ''}${sinceNote(m)}`;
