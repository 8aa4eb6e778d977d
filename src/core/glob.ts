// Path globs of policy rules and contract scopes, matched against a path as fettle records it: relative to the
// repository's top directory, '/'-separated (outside any repository: the absolute path without its leading '/').
// The rules are gitignore's, which the people writing these files already know:
//   *        any run of characters within one path segment (never '/'); dotfiles included
//   ?        one character, not '/'
//   [a-z]    one character of the class, [!a-z] or [^a-z] one not in it; never '/'
//   **       as a whole segment: any number of segments, zero included (`a/**/b` matches `a/b`); `dir/**`
//            everything under dir; elsewhere (`a**b`) it is `*`
//   \x       x itself (`\*` is a star)
//   /x       a leading '/' anchors the pattern to the top directory
//   x        a pattern with no '/' but a trailing one matches the name at any depth (`.env*` matches
//            `config/.env.local`); a pattern with a '/' in it is anchored (`src/*.ts` is top-level src/ only)
//   dir/     a trailing '/' means everything under dir (fettle matches files, never directories)
// Matching is case-sensitive, as git is by default: write `[Rr]eadme.md` for either.

export interface Glob {
  /** the pattern as written */
  pattern: string;
  /** anchored to the top directory (a leading '/', or a '/' inside it) */
  anchored: boolean;
  regex: RegExp;
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/]/;
const literal = (c: string): string => (REGEX_SPECIAL.test(c) ? `\\${c}` : c);

/** `[...]` starting at `at` (the '['): the regex class and where it ends, or why it is not one. */
const charClass = (s: string, at: number): { re: string; end: number } | { error: string } => {
  let i = at + 1;
  const negated = s[i] === '!' || s[i] === '^';
  if (negated) i++;
  let body = '';
  let first = true;
  for (; i < s.length; i++) {
    const c = s[i] as string;
    // A range such as [!-~] spans '/': the class never matches it either way.
    if (c === ']' && !first) return { re: negated ? `[^/${body}]` : `(?!/)[${body}]`, end: i };
    first = false;
    if (c === '\\') {
      const next = s[i + 1];
      if (next === undefined) break;
      body += `\\${next}`;
      i++;
    } else if (c === '-' && body !== '' && s[i + 1] !== ']' && s[i + 1] !== undefined) body += '-';
    else body += /[\\\]^[-]/.test(c) ? `\\${c}` : c;
  }
  return { error: "a '[' is never closed by ']' within its segment" };
};

/** One path segment (no '/') as a regex, or why it cannot be one. */
const segmentRegex = (s: string): string | { error: string } => {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '\\') {
      const next = s[i + 1];
      if (next === undefined) return { error: "it ends with a lone '\\'" };
      out += literal(next);
      i++;
    } else if (c === '*') {
      while (s[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const cls = charClass(s, i);
      if ('error' in cls) return cls;
      out += cls.re;
      i = cls.end;
    } else out += literal(c);
  }
  return out;
};

/** The pattern compiled, or what is wrong with it (in words for the message that names the rule). */
export const compileGlob = (pattern: string): Glob | { error: string } => {
  if (pattern.trim() === '') return { error: 'the pattern is empty' };
  if (/[\0\n\r]/.test(pattern)) return { error: 'the pattern holds a line break or NUL' };
  let body = pattern;
  const rooted = body.startsWith('/');
  if (rooted) body = body.slice(1);
  const dir = body.endsWith('/');
  body = body.replace(/\/+$/, '');
  const anchored = rooted || body.includes('/');
  if (dir) body = `${body}/**`;
  if (body === '' || body === '/**' || body === '**') return { pattern, anchored: rooted, regex: /^.+$/s };
  const segments = body.split('/');
  if (segments.some((s) => s === '')) return { error: "it has an empty segment ('//')" };
  if (segments.some((s) => s === '.' || s === '..'))
    return { error: "it has a '.' or '..' segment, which no recorded path has" };
  const all = anchored ? segments : ['**', ...segments];
  let re = '';
  for (const [n, segment] of all.entries()) {
    const last = n === all.length - 1;
    if (segment === '**') {
      re += last ? '.+' : '(?:[^/]*/)*';
      continue;
    }
    const compiled = segmentRegex(segment);
    if (typeof compiled !== 'string') return compiled;
    re += compiled + (last ? '' : '/');
  }
  return { pattern, anchored, regex: new RegExp(`^${re}$`, 's') };
};

export const matchesGlob = (glob: Glob, path: string): boolean => glob.regex.test(path);
