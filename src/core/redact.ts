// What looks like a secret in text a person typed (a prompt), replaced before the text leaves the machine. A
// pattern names its kind in the replacement, so a reviewer sees that something was there and what it was, never
// its value. Deliberately eager: a false positive costs a reader a word, a miss publishes a credential.

interface Rule {
  kind: string;
  pattern: RegExp;
  /** the capture group that is the secret (the rest of the match is kept); 0: the whole match */
  group?: number;
}

const RULES: readonly Rule[] = [
  {
    kind: 'private key',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----|$)/g,
  },
  { kind: 'AWS access key', pattern: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'GitHub token', pattern: /\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b/g },
  { kind: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { kind: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'Stripe key', pattern: /\b[sr]k_(live|test)_[0-9A-Za-z]{16,}\b/g },
  { kind: 'API key', pattern: /\bsk-(ant-|proj-)?[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'JWT', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'password in URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]+)@/gi, group: 1 },
  { kind: 'bearer token', pattern: /\b(?:Bearer|Basic|token)\s+([A-Za-z0-9._~+/-]{16,}=*)/g, group: 1 },
  {
    kind: 'secret',
    pattern:
      /\b[\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[\w.-]*["']?\s*[:=]\s*["']?([^\s"',;]{6,})/gi,
    group: 1,
  },
];

export interface Redacted {
  text: string;
  /** how many secrets were replaced, by kind */
  found: Record<string, number>;
}

/** `text` with every secret-looking value replaced by `[redacted <kind>]`. */
export const redact = (text: string): Redacted => {
  const found: Record<string, number> = {};
  let out = text;
  for (const { kind, pattern, group = 0 } of RULES) {
    out = out.replace(pattern, (match: string, ...rest: unknown[]) => {
      const secret = group === 0 ? match : (rest[group - 1] as string | undefined);
      if (!secret || secret.startsWith('[redacted')) return match;
      found[kind] = (found[kind] ?? 0) + 1;
      const at = match.lastIndexOf(secret);
      return `${match.slice(0, at)}[redacted ${kind}]${match.slice(at + secret.length)}`;
    });
  }
  return { text: out, found };
};
