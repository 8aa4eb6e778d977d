import {
  type Config,
  DEFAULTS,
  type Env,
  loadConfig,
  READ_DEFAULTS,
  readThresholdFrom,
  testLinksFrom,
} from '../config';
import type { PolicyLayer } from '../core/policy';
import { policyInForce } from '../protocol/decide/policy';
import { type ReadSavings, readSavings } from '../protocol/read-baselines';
import { table } from './change-view';
import { contextFor, spelled, type Edge } from './edge';

type PolicyInForce = Awaited<ReturnType<typeof policyInForce>>;

/** The policy rules in force, a line each, for `fettle info`. */
const policyLines = (p: PolicyInForce): string[] => {
  const lines = ["Policy (path rules; the last that matches decides, the repository's after yours):"];
  for (const f of p.files) lines.push(`  ${f.layer.padEnd(8)} ${f.display}${f.exists ? '' : '  (none)'}`);
  if (p.error)
    return [
      ...lines,
      `  INVALID: ${p.error.message} Every write is blocked until it is fixed (or FETTLE_ON_ERROR=allow).`,
    ];
  const rows = p.layers.flatMap((l: PolicyLayer) =>
    l.rules.map((r) => [
      r.label,
      r.action,
      JSON.stringify(r.path),
      r.message ?? (r.thresholds ? JSON.stringify(r.thresholds) : r.run ? `runs ${JSON.stringify(r.run.command)}` : ''),
    ]),
  );
  if (rows.length === 0) return [...lines, '  no rules: the thresholds decide every path'];
  return [
    ...lines,
    ...table(rows).map((r) => `    ${r}`),
    '  `fettle policy check <path>` says which rule decides a path, and why.',
  ];
};

/** Settings read apart from the Config, by the one part of fettle that uses each, so a mistake blocks no write. */
interface Apart {
  links: string[];
  readThreshold: number;
}

/** `fettle info --json`: the settings in force, the policy rules in force and the defaults. */
const infoJson = (c: Config, { links, readThreshold }: Apart, policy: PolicyInForce) => ({
  floor: c.floor,
  ceil: c.ceil,
  ratio: c.ratio,
  ttlSeconds: c.ttlSeconds,
  onError: c.onError,
  review: c.review,
  historyMaxAgeSeconds: c.historyMaxAgeSeconds,
  historyMaxCount: c.historyMaxCount,
  bash: c.bash,
  bashMaxFiles: c.bashMaxFiles,
  bashMaxFileBytes: c.bashMaxFileBytes,
  dataDir: c.dataDir,
  testLink: links,
  readThreshold,
  audit: c.audit,
  policy: {
    files: policy.files,
    error: policy.error ? { code: policy.error.code, message: policy.error.message } : null,
    rules: policy.layers.flatMap((l) =>
      l.rules.map((r) => ({
        rule: r.label,
        layer: r.layer,
        path: r.path,
        action: r.action,
        message: r.message,
        thresholds: r.thresholds,
        run: r.run,
      })),
    ),
  },
  defaults: DEFAULTS,
});

/** What fettle_read's re-reads saved, summed over the sessions that read through it. */
const savingsLines = (r: ReadSavings): string[] => {
  if (r.reads === 0) return [];
  const share = r.plainBytes > 0 ? Math.round((100 * (r.plainBytes - r.sentBytes)) / r.plainBytes) : 0;
  return [
    '',
    `Reads answered from what the session saw (fettle_read, Claude Code's Read with install --read): ${r.reads} in ${r.sessions} session${r.sessions === 1 ? '' : 's'}, ${r.answeredShort} answered with a line or a diff;`,
    `  ${r.sentBytes} bytes sent instead of ${r.plainBytes} (${share} % less), about ${r.estimatedTokensSaved} tokens saved (an estimate: bytes / 4).`,
  ];
};

/** How fettle decides what happens to a Write, per tool, and who reviews a staged one. */
const howWritesAreDecided = (c: Config, readThreshold: number): string[] => [
  'How fettle decides what happens to a Write (changed = added + removed lines):',
  '',
  '  file does not exist            -> direct (new file; recorded)',
  '  same bytes as on disk          -> no-op (nothing recorded)',
  '  binary, not UTF-8, or > 5 MB   -> direct (no diff; previous bytes recorded)',
  `  ${`changed <= ${c.floor}`.padEnd(31)}-> direct`,
  `  ${`changed >= ${c.ceil}`.padEnd(31)}-> staged`,
  `  ${`changed / old lines > ${c.ratio}`.padEnd(31)}-> staged`,
  '  otherwise                      -> direct',
  '',
  'direct: the write goes through; the previous bytes are committed under refs/fettle/<id> first.',
  'staged: nothing is written; the proposal is a commit on refs/fettle/<id> until `fettle confirm <id>`',
  '        or `fettle discard <id>`.',
  'Plan mode: fettle does nothing. Paths inside .git: not handled, never written.',
  '',
  'Per tool:',
  "  Write         the new content as given, in the file's encoding, its BOM kept",
  '  Edit          old_string -> new_string applied as the tool does (exact match, else through curly quotes',
  '                or \\uXXXX escapes; unique unless replace_all), the file in its majority line endings;',
  '  MultiEdit     edits in order, all or nothing. If fettle cannot be sure of the result (no match,',
  '                several matches), it records the previous bytes and lets the tool run and report.',
  '  NotebookEdit  changed lines of cell source count; the record keeps the whole .ipynb',
  `  Read          only with \`fettle install --read\`: text files over ${readThreshold === READ_DEFAULTS.thresholdBytes ? '256 KB' : `${readThreshold} bytes`} are served from disk`,
  '                a page at a time; a re-read of bytes the session was given is one line',
  '  Bash          obviously read-only commands (ls, cat, grep, git log, ...) cost nothing; any other is',
  '                scanned with `git status` before and after, and what it changed in the repository is',
  '                recorded as one changeset (ignored files and files outside the repository are not)',
  '',
  ...(c.review === 'human'
    ? [
        "Review: a person approves every staged change at Claude Code's prompt (FETTLE_REVIEW=human);",
        "        `fettle confirm` from the agent's shell is refused. dontAsk mode: a large write is refused.",
      ]
    : [
        "Review, by Claude Code's permission mode: acceptEdits (in the project), bypassPermissions: the model",
        '        may run `fettle confirm`; default, auto: Claude Code asks you; dontAsk: a large write is',
        '        refused. FETTLE_REVIEW=human: you approve every one.',
      ]),
  '',
];

/** Each setting in force, with where it came from: its environment variable, or the default. */
const settingsInForce = (c: Config, { links, readThreshold }: Apart, env: Env): string[] => {
  const source = (name: string) => (env[name] ? `from ${name}` : 'default');
  return table([
    ['FETTLE_WRITE_FLOOR', `${c.floor} (${source('FETTLE_WRITE_FLOOR')})`],
    ['FETTLE_WRITE_CEIL', `${c.ceil} (${source('FETTLE_WRITE_CEIL')})`],
    ['FETTLE_WRITE_RATIO', `${c.ratio} (${source('FETTLE_WRITE_RATIO')})`],
    ['FETTLE_WRITE_STAGE_TTL', `${c.ttlSeconds} s (${source('FETTLE_WRITE_STAGE_TTL')})`],
    ['FETTLE_ON_ERROR', `${c.onError} (${source('FETTLE_ON_ERROR')})`],
    ['FETTLE_REVIEW', `${c.review} (${source('FETTLE_REVIEW')})`],
    ['FETTLE_HISTORY_MAX_AGE', `${c.historyMaxAgeSeconds} s (${source('FETTLE_HISTORY_MAX_AGE')})`],
    ['FETTLE_HISTORY_MAX_COUNT', `${c.historyMaxCount} (${source('FETTLE_HISTORY_MAX_COUNT')})`],
    ['FETTLE_BASH', `${c.bash} (${source('FETTLE_BASH')})`],
    ['FETTLE_BASH_MAX_FILES', `${c.bashMaxFiles} (${source('FETTLE_BASH_MAX_FILES')})`],
    ['FETTLE_BASH_MAX_FILE_BYTES', `${c.bashMaxFileBytes} (${source('FETTLE_BASH_MAX_FILE_BYTES')})`],
    ['FETTLE_READ_THRESHOLD', `${readThreshold} (${source('FETTLE_READ_THRESHOLD')})`],
    ['FETTLE_TEST_LINK', `${links.length ? links.join(':') : '(none)'} (${source('FETTLE_TEST_LINK')})`],
    [
      'FETTLE_AUDIT',
      `${c.audit ? '1: every hook decision goes to .git/fettle/audit.jsonl' : '0'} (${source('FETTLE_AUDIT')})`,
    ],
    ['store outside repos', c.dataDir],
  ]).map((row) => `  ${row}`);
};

export const info = async (edge: Edge, dir: string | undefined, o: { json?: boolean }): Promise<void> => {
  const c = loadConfig(edge.env);
  const apart = { links: testLinksFrom(edge.env), readThreshold: readThresholdFrom(edge.env) };
  const policy = await policyInForce(contextFor(edge, dir));
  const reads = await readSavings(c.dataDir);
  if (o.json) {
    edge.io.out(JSON.stringify({ ...infoJson(c, apart, policy), reads }, null, 2));
    return;
  }
  const text = [
    ...howWritesAreDecided(c, apart.readThreshold),
    'In force:',
    ...settingsInForce(c, apart, edge.env),
    '',
    ...policyLines(policy),
    ...savingsLines(reads),
  ].join('\n');
  edge.io.out(spelled(edge, undefined, text));
};
