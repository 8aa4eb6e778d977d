// A word as a POSIX shell reads it back unchanged: as is when it holds only characters no shell treats specially,
// else in single quotes (a quote inside closed, escaped and reopened). Pure, so core and every layer above share it.
export const shellQuote = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
