// The title and body of a pull request made from an agent session (`fettle pr`): what it changed, then its turns,
// each with the prompt that started it when the person shared the prompts, and the files it touched. Markdown,
// with every text that came from outside (paths, prompts) fenced or escaped so none of it becomes markup.

export interface PrTurn {
  turn: number | null;
  /** the prompt, already redacted; undefined when prompts are not shared or none was kept */
  prompt?: string | undefined;
  paths: string[];
}

export interface PrSession {
  session: string;
  base: string | null;
  changes: number;
  files: { path: string; added: number | null; removed: number | null }[];
  turns: PrTurn[];
}

const PROMPT_CHARS = 1500;

const code = (text: string): string => {
  const ticks = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length)) + 1;
  const fence = '`'.repeat(ticks);
  return ticks > 1 || /^\s|\s$/.test(text) ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
};

const quoted = (prompt: string): string[] => {
  const text = prompt.length > PROMPT_CHARS ? `${prompt.slice(0, PROMPT_CHARS)}…` : prompt;
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length + 1)));
  return [`${fence}text`, ...text.split(/\r?\n/), fence];
};

export const prTitle = (s: Pick<PrSession, 'session' | 'changes' | 'files'>): string =>
  `Agent session ${s.session}: ${s.changes} change${s.changes === 1 ? '' : 's'} in ${s.files.length} file${s.files.length === 1 ? '' : 's'}`;

export const prBody = (s: PrSession): string => {
  const lines = [
    `Everything agent session ${code(s.session)} changed, as one commit on ${s.base ? code(s.base.slice(0, 12)) : 'no base'}, the commit it started from.`,
    '',
    '### Files',
    '',
    ...s.files.map((f) => `- ${code(f.path)} ${f.added === null ? '(binary)' : `(+${f.added} -${f.removed ?? 0})`}`),
    '',
    '### Turns',
    '',
  ];
  for (const t of s.turns) {
    lines.push(
      `**${t.turn === null ? 'Before turns were counted' : `Turn ${t.turn}`}**: ${t.paths.map(code).join(', ')}`,
    );
    if (t.prompt !== undefined) lines.push('', ...quoted(t.prompt));
    lines.push('');
  }
  lines.push('Made with `fettle pr`; the session itself can be shared with `fettle share`.');
  return `${lines.join('\n')}\n`;
};

/** `owner/repo` of a GitHub remote URL (https, ssh or scp-like); null for any other. */
export const githubRepo = (url: string): string | null => {
  const m =
    /^(?:https?:\/\/(?:[^@/]+@)?github\.com\/|ssh:\/\/git@github\.com\/|git@github\.com:)([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(
      url,
    );
  return m ? `${m[1]}/${m[2]}` : null;
};
