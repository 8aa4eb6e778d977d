// In-process line diff with a hard time bound. jsdiff is quadratic on heavy rewrites (a 5 MB rewrite gave no
// result in 10 minutes), so every call carries a timeout; on `undefined` the caller falls back to git.
import { structuredPatch, type StructuredPatchHunk } from 'diff';
import { classifyContent } from './content';

export interface LineDiff {
  added: number;
  removed: number;
  /** of those, lines modified in place (modifiedCounter) */
  modified: number;
  hunks: StructuredPatchHunk[];
}

/**
 * Lines modified in place, the `~N` of the note after a direct write. A run is the removed and added lines
 * between two unchanged lines (or headers); in each, min(removed, added) lines were modified in place, the rest
 * only removed or only added. A modified line still counts in both `+N` and `-M`, as unified diffs and the
 * decision count it. Fed each line's first character; `\` ("No newline at end of file") does not end a run.
 */
const modifiedCounter = () => {
  let [removed, added, modified] = [0, 0, 0];
  const close = () => {
    modified += Math.min(removed, added);
    [removed, added] = [0, 0];
  };
  return {
    line(first: string): void {
      if (first === '-') removed++;
      else if (first === '+') added++;
      else if (first !== '\\') close();
    },
    end(): number {
      close();
      return modified;
    },
  };
};

export const DIFF_TIMEOUT_MS = 300;

/** Lines as jsdiff compares them: each keeps its '\n' (and a '\r' before it); the last may have none. */
const linesOf = (text: string): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const eol = text.indexOf('\n', i);
    const end = eol < 0 ? text.length : eol + 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
};

const NO_EOL = '\\ No newline at end of file';

const hunkSide = (sign: '-' | '+', lines: string[]): string[] => {
  const out = lines.map((l) => sign + (l.endsWith('\n') ? l.slice(0, -1) : l));
  const last = lines[lines.length - 1];
  if (last !== undefined && !last.endsWith('\n')) out.push(NO_EOL);
  return out;
};

/**
 * When no line of one version appears in the other, every line changed: the patch is one hunk, all removals
 * then all additions, exactly what jsdiff returns. Built directly, because a cold jsdiff spends ~20 ms proving
 * it on a 200-line rewrite (the usual staged change), and that is paid on every such write.
 */
const disjointPatch = (oldText: string, newText: string): StructuredPatchHunk[] | undefined => {
  // Nearly every edit keeps its first or last line: the versions then share one, without splitting them.
  const first = (t: string) => t.slice(0, t.indexOf('\n') + 1 || t.length);
  const last = (t: string) => t.slice(t.lastIndexOf('\n', t.length - 2) + 1);
  if (first(oldText) === first(newText) || last(oldText) === last(newText)) return undefined;
  const [a, b] = [linesOf(oldText), linesOf(newText)];
  if (a.length + b.length === 0) return undefined;
  const seen = new Set(a);
  if (b.some((line) => seen.has(line))) return undefined;
  return [
    {
      oldStart: 1,
      oldLines: a.length,
      newStart: 1,
      newLines: b.length,
      lines: [...hunkSide('-', a), ...hunkSide('+', b)],
    },
  ];
};

export const diffLines = (oldText: string, newText: string, timeoutMs = DIFF_TIMEOUT_MS): LineDiff | undefined => {
  const disjoint = disjointPatch(oldText, newText);
  const patch = disjoint
    ? { hunks: disjoint }
    : structuredPatch('a', 'b', oldText, newText, '', '', { context: 3, timeout: timeoutMs });
  if (!patch) return undefined;
  let [added, removed] = [0, 0];
  const modified = modifiedCounter();
  for (const hunk of patch.hunks) {
    modified.line('@');
    for (const line of hunk.lines) {
      const first = line[0] ?? ' ';
      if (first === '+') added++;
      else if (first === '-') removed++;
      modified.line(first);
    }
  }
  return { added, removed, modified: modified.end(), hunks: patch.hunks };
};

/** +N -M ~K between two versions of a file (null: no file); undefined when either is not text or the diff gave up. */
export const changeCounts = (
  from: Buffer | null,
  to: Buffer | null,
): { added: number; removed: number; modified: number } | undefined => {
  const [a, b] = [from ?? Buffer.alloc(0), to ?? Buffer.alloc(0)];
  if (classifyContent(a) !== 'text' || classifyContent(b) !== 'text') return undefined;
  const d = diffLines(a.toString('utf8'), b.toString('utf8'));
  return d && { added: d.added, removed: d.removed, modified: d.modified };
};

/** +N -M between two versions of a file, as a record's fields hold them; empty when there are none (changeCounts). */
export const countChanges = (from: Buffer | null, to: Buffer | null): { added?: number; removed?: number } => {
  const c = changeCounts(from, to);
  return c ? { added: c.added, removed: c.removed } : {};
};

export interface RenderedDiff {
  text: string;
  /** lines left out to respect the cap */
  cutLines: number;
}

/**
 * Keeps at most `maxLines` lines of a diff body, but no run of removed (or of added) lines takes more than about
 * half: a rewrite of 3,000 lines is one run of 3,000 removals, then 3,000 additions, and a plain first-N cut would
 * show only what goes, never what comes instead. A run cut short ends with a line saying how many were left out.
 */
export const lineCapper = (maxLines: number) => {
  const runCap = Math.max(1, Math.floor(maxLines / 2) - 2);
  const shown: string[] = [];
  let cut = 0;
  let run = { sign: '', shown: 0, cut: 0 };
  const close = () => {
    if (run.cut > 0 && shown.length < maxLines)
      shown.push(`[${run.cut} more ${run.sign === '-' ? 'removed' : 'added'} lines]`);
    run = { sign: '', shown: 0, cut: 0 };
  };
  return {
    /** Whether a line starting with `first` would be kept (so the caller may skip decoding one that is not). */
    keeps(first: string): boolean {
      const sign = first === '-' || first === '+' ? first : '';
      if (shown.length >= maxLines) return false;
      return sign === '' || sign !== run.sign || run.shown < runCap;
    },
    push(line: string): void {
      const sign = line[0] === '-' || line[0] === '+' ? line[0] : '';
      if (sign !== run.sign) close();
      run.sign = sign;
      if (shown.length >= maxLines || (sign !== '' && run.shown >= runCap)) {
        cut++;
        if (sign !== '') run.cut++;
        return;
      }
      shown.push(line);
      if (sign !== '') run.shown++;
    },
    end(): { shown: string[]; cutLines: number } {
      close();
      return { shown, cutLines: cut };
    },
  };
};

/** A unified diff as `git diff` prints it, capped at `maxLines` lines of hunk body (see lineCapper). */
export const renderUnified = (
  path: string,
  hunks: StructuredPatchHunk[],
  maxLines: number,
  oldExists = true,
): RenderedDiff => {
  const capper = lineCapper(maxLines);
  for (const hunk of hunks) {
    // An empty range is numbered from the line before it (`-0,0` for an empty file), as diff and git print it.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    capper.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) capper.push(line);
  }
  const { shown, cutLines } = capper.end();
  const head = [`--- ${oldExists ? `a/${path}` : '/dev/null'}`, `+++ b/${path}`];
  return { text: [...head, ...shown].join('\n'), cutLines };
};

export interface ScannedPatch {
  added: number;
  removed: number;
  /** of those, lines modified in place (modifiedCounter) */
  modified: number;
  /** at most `cap` lines from the first hunk header on, both sides of a long change (lineCapper) */
  shown: string[];
  cutLines: number;
}

/**
 * Counts +/- lines of a unified diff produced by git (the fallback for large files) and keeps its first `cap`
 * lines, scanning the bytes once: a 5 MB rewrite's patch is never turned into one string or 200k of them.
 * `---`/`+++` are file headers only before a file's first hunk; inside a hunk they are content lines.
 */
export const scanUnified = (patch: Buffer, cap: number): ScannedPatch => {
  const scanner = unifiedScanner(cap);
  scanner.push(patch);
  return scanner.end();
};

/** scanUnified fed in chunks as git writes them: only a partial line is held between chunks. */
export const unifiedScanner = (cap: number): { push(chunk: Buffer): void; end(): ScannedPatch } => {
  const out: ScannedPatch = { added: 0, removed: 0, modified: 0, shown: [], cutLines: 0 };
  const capper = lineCapper(cap);
  const modified = modifiedCounter();
  let inHunk = false;
  let rest: Buffer = Buffer.alloc(0);
  const line = (bytes: Buffer): void => {
    if (bytes.length === 0) return;
    const first = bytes[0];
    if (bytes.subarray(0, 11).toString('latin1') === 'diff --git ') inHunk = false;
    else if (first === 0x40 /* @ */ && bytes[1] === 0x40) inHunk = true;
    // Past the cap only the sign matters: a line of a 5 MB patch is not decoded to be dropped.
    const sign = String.fromCharCode(first ?? 0x20);
    modified.line(inHunk ? sign : '@');
    if (!inHunk) return;
    if (first === 0x2b /* + */) out.added++;
    else if (first === 0x2d /* - */) out.removed++;
    capper.push(capper.keeps(sign) ? bytes.toString('utf8') : sign);
  };
  return {
    push(chunk) {
      const bytes = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let at = 0;
      for (let end = bytes.indexOf(0x0a, at); end !== -1; end = bytes.indexOf(0x0a, at)) {
        line(bytes.subarray(at, end));
        at = end + 1;
      }
      rest = Buffer.from(bytes.subarray(at));
    },
    end() {
      line(rest);
      rest = Buffer.alloc(0);
      const { shown, cutLines } = capper.end();
      return { ...out, modified: modified.end(), shown, cutLines };
    },
  };
};
