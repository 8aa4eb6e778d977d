// What is wrong with a text JSON.parse refused, said for a person fixing the file: the parser's words without the
// copy of the text some of them carry, and the line and column when the parser gives a position.

/** Line and column (1-based) of a character offset. */
export const lineColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
};

export const jsonError = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  // V8 quotes the whole text in some messages (`Unexpected token '}', "{...}" is not valid JSON`).
  const words = message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  const at = /at position (\d+)/.exec(message);
  if (!at) return words;
  const { line, column } = lineColumn(text, Number(at[1]));
  return `${words} at line ${line}, column ${column}`;
};
