// A hunk cut into pieces of at most about a hundred lines: the unit the page renders and highlights lazily, so a
// hunk of thousands of lines (a new file is one hunk) costs only the pieces near the viewport. Each piece is a
// hunk text of its own, with an `@@` line giving where its lines start, cut at a context line where one is near
// so a run of removed and added lines stays paired.

export interface Piece {
  /** a unified diff from its own `@@` line on */
  text: string;
  /** the number of its first old and new line */
  starts: [number, number];
  /** the rows it takes, unified and split: its placeholder's height until it is rendered */
  rows: { unified: number; split: number };
}

const SIZE = 100;
const STRETCH = 40;
const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

const rowsOf = (lines: string[]): Piece['rows'] => {
  let unified = 0;
  let split = 0;
  let del = 0;
  let add = 0;
  const close = () => {
    split += Math.max(del, add);
    del = 0;
    add = 0;
  };
  for (const line of lines) {
    if (line[0] === '\\') continue;
    unified++;
    if (line[0] === '-') {
      if (add > 0) close();
      del++;
    } else if (line[0] === '+') add++;
    else {
      close();
      split++;
    }
  }
  close();
  return { unified, split };
};

const pieceOf = (lines: string[], oldAt: number, newAt: number): Piece => {
  const olds = lines.filter((l) => l[0] === ' ' || l[0] === '-').length;
  const news = lines.filter((l) => l[0] === ' ' || l[0] === '+').length;
  // git's convention: an empty side's start is the line before it
  const head = `@@ -${olds ? oldAt : Math.max(0, oldAt - 1)},${olds} +${news ? newAt : Math.max(0, newAt - 1)},${news} @@`;
  return { text: [head, ...lines].join('\n'), starts: [oldAt, newAt], rows: rowsOf(lines) };
};

export const piecesOf = (hunkText: string): Piece[] => {
  const [head = '', ...lines] = hunkText.split('\n');
  const m = HUNK.exec(head);
  if (!m) return [];
  let oldAt = Number(m[1]) + (m[2] === '0' ? 1 : 0);
  let newAt = Number(m[3]) + (m[4] === '0' ? 1 : 0);
  if (lines.length <= SIZE + STRETCH) return [{ text: hunkText, starts: [oldAt, newAt], rows: rowsOf(lines) }];
  const pieces: Piece[] = [];
  let current: string[] = [];
  let [o, n] = [oldAt, newAt];
  for (const line of lines) {
    const full = current.length >= SIZE && (line[0] === ' ' || current.length >= SIZE + STRETCH);
    if (full && line[0] !== '\\') {
      pieces.push(pieceOf(current, oldAt, newAt));
      [oldAt, newAt, current] = [o, n, []];
    }
    current.push(line);
    if (line[0] === ' ' || line[0] === '-') o++;
    if (line[0] === ' ' || line[0] === '+') n++;
  }
  if (current.length > 0) pieces.push(pieceOf(current, oldAt, newAt));
  return pieces;
};
