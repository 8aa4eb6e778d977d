// Hook payloads for Edit, MultiEdit, NotebookEdit and Read, and one tool call driven the way Claude Code
// drives it: PreToolUse, the tool itself (simulated by the test), then PostToolUse or PostToolUseFailure.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { byteSize } from '../../src/core/byte-size';
import { literal, runHook, type HookRun } from './cli';
import { makeRepo, type Repo } from './repo';
import { stateOf, T0 } from './stage';

export type Env = Record<string, string>;
export type Input = Record<string, unknown>;

/** Thresholds under which every change of at least one line is staged: the proposal shows fettle's prediction. */
export const STAGE_ALL: Env = { FETTLE_WRITE_FLOOR: '0', FETTLE_WRITE_CEIL: '1' };

export const editInput = (file: string, oldString: string, newString: string, replaceAll?: boolean): Input => ({
  file_path: file,
  old_string: oldString,
  new_string: newString,
  ...(replaceAll === undefined ? {} : { replace_all: replaceAll }),
});

export const multiEditInput = (file: string, edits: [string, string, boolean?][]): Input => ({
  file_path: file,
  edits: edits.map(([o, n, all]) => ({
    old_string: o,
    new_string: n,
    ...(all === undefined ? {} : { replace_all: all }),
  })),
});

export interface NotebookArgs {
  cellId?: string;
  source?: string;
  cellType?: 'code' | 'markdown';
  mode?: 'replace' | 'insert' | 'delete';
}
export const notebookInput = (path: string, a: NotebookArgs): Input => ({
  notebook_path: path,
  ...(a.cellId === undefined ? {} : { cell_id: a.cellId }),
  new_source: a.source ?? '',
  ...(a.cellType ? { cell_type: a.cellType } : {}),
  ...(a.mode ? { edit_mode: a.mode } : {}),
});

export const readInput = (file: string, offset?: number, limit?: number): Input => ({
  file_path: file,
  ...(offset === undefined ? {} : { offset }),
  ...(limit === undefined ? {} : { limit }),
});

export interface CallOpts {
  event?: 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure';
  /** permission_mode (default acceptEdits, where the model reviews); null leaves the field out */
  mode?: string | null;
  toolUseId?: string;
  /** the agent's cwd in the payload (default: the repository) */
  cwd?: string;
  env?: Env;
  /** PostToolUseFailure's error text */
  error?: string;
}

export const payload = (repo: Repo, tool: string, input: Input, o: CallOpts = {}): Record<string, unknown> => ({
  session_id: 'session-1',
  transcript_path: '/dev/null',
  cwd: o.cwd ?? repo.dir,
  ...(o.mode === null ? {} : { permission_mode: o.mode ?? 'acceptEdits' }),
  hook_event_name: o.event ?? 'PreToolUse',
  tool_name: tool,
  tool_input: input,
  tool_use_id: o.toolUseId ?? 'toolu_01',
  ...(o.event === 'PostToolUseFailure'
    ? { error: o.error ?? 'String to replace not found in file.', is_interrupt: false }
    : {}),
});

/** `fettle hook` on one event, on the pinned clock. */
export const hook = (repo: Repo, tool: string, input: Input, o: CallOpts = {}): HookRun =>
  runHook(payload(repo, tool, input, o), { cwd: repo.dir, env: { ...repo.env, FETTLE_NOW: String(T0), ...o.env } });

export interface ToolRun {
  pre: HookRun;
  /** PostToolUse after the tool succeeded, PostToolUseFailure after it failed; none when it never ran */
  post: HookRun | undefined;
  ran: boolean;
  /** fettle's refs (name -> commit) as PreToolUse left them, read when the tool was about to run */
  atTool?: Map<string, string>;
}

/**
 * One tool call. The tool runs unless PreToolUse blocked or denied it, or asked and `answer` is not `allow`.
 * `tool` is the tool's own effect on disk; returning false means the tool failed (it reported an error).
 */
export const toolCall = (
  repo: Repo,
  name: string,
  input: Input,
  tool: () => boolean | void,
  o: CallOpts & { answer?: 'allow' | 'deny' } = {},
): ToolRun => {
  const pre = hook(repo, name, input, { ...o, event: 'PreToolUse' });
  const decision = hso(pre)?.permissionDecision;
  if (pre.code === 2 || decision === 'deny' || (decision === 'ask' && o.answer !== 'allow'))
    return { pre, post: undefined, ran: false };
  const atTool = new Map(
    repo
      .git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/fettle/')
      .split('\n')
      .filter((l) => l && !l.startsWith('refs/fettle/sessions/'))
      .map((l) => l.split(' ') as [string, string]),
  );
  const failed = tool() === false;
  return {
    pre,
    post: hook(repo, name, input, { ...o, event: failed ? 'PostToolUseFailure' : 'PostToolUse' }),
    ran: true,
    atTool,
  };
};

export const hso = (r: HookRun | undefined): Record<string, string> | undefined => r?.json?.hookSpecificOutput;
export const show = (r: HookRun | undefined): string =>
  r ? `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}` : 'no run';

/** Exit 0, nothing on stdout or stderr: Claude Code carries on as if fettle were not there. */
export const assertSilent = (r: HookRun | undefined, what = 'hook'): void =>
  assert.deepEqual([r?.code, r?.stdout, r?.stderr], [0, '', ''], `${what} is silent: ${show(r)}`);

/** A PreToolUse deny; returns the reason. */
export const denied = (r: HookRun): string => {
  assert.deepEqual([r.code, hso(r)?.hookEventName, hso(r)?.permissionDecision], [0, 'PreToolUse', 'deny'], show(r));
  return hso(r)?.permissionDecisionReason ?? '';
};

/** The one line of context a PostToolUse adds after a recorded write. */
export const recordedLine = (r: HookRun | undefined, id: string): string => {
  assert.deepEqual([r?.code, hso(r)?.hookEventName], [0, 'PostToolUse'], show(r));
  const line = hso(r)?.additionalContext ?? '';
  assert.doesNotMatch(line, /\n/, 'one line');
  assert.match(line, new RegExp(`\\b${id}\\b.*\\brollback ${id}$`), line);
  return line;
};

/** What the line after a direct write says of the UTF-8 text file it left: its size and its lines (`231 B, 30 lines`). */
export const landedText = (content: string | Buffer): string => {
  const text = content.toString();
  const n = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return `${byteSize(Buffer.byteLength(text))}, ${n} ${n === 1 ? 'line' : 'lines'}`;
};

/** The whole line after a direct write to `path`, recorded as `id`, saying `inside` in its parentheses. */
export const directNote = (path: string, inside: string, id: string): RegExp =>
  new RegExp(`^fettle recorded ${literal(path)} \\(${literal(inside)}\\) as ${id}; undo with: .+ rollback ${id}$`);

export const fettleRefs = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle/', 'refs/fettle-discarded/')
    .split('\n')
    .filter((r) => r && !r.startsWith('refs/fettle/sessions/'));

/**
 * The change a tool call created since `known` was listed, as PreToolUse left it (a failed tool's record may be
 * gone by now), with the commit its ref pointed at then.
 */
export const changeOf = (repo: Repo, run: ToolRun, known: string[]): { id: string; tip: string } => {
  const fresh = [...(run.atTool?.keys() ?? [])].filter((r) => !known.includes(r));
  if (fresh.length === 0) return { id: newChange(repo, known), tip: '' };
  assert.equal(fresh.length, 1, `exactly one new change: ${fresh.join(' ')}`);
  const ref = fresh[0] as string;
  return { id: ref.replace('refs/fettle/', ''), tip: run.atTool?.get(ref) ?? '' };
};

/** The id of the one change created since `known` was listed. */
export const newChange = (repo: Repo, known: string[]): string => {
  const fresh = fettleRefs(repo).filter((r) => !known.includes(r));
  assert.equal(fresh.length, 1, `exactly one new change: ${fresh.join(' ')}`);
  return fresh[0]!.replace('refs/fettle/', '');
};

/** The bytes of `file` at `rev`, or null when the tree has no such path. */
export const blobAt = (repo: Repo, rev: string, file: string): Buffer | null =>
  repo.git('ls-tree', rev, '--', file) === '' ? null : repo.gitBytes('show', `${rev}:${file}`);

export const onDisk = (repo: Repo, file: string): Buffer | null =>
  existsSync(repo.path(file)) ? repo.read(file) : null;

/** Fettle-Kind of the commit at `rev`. */
export const kindAt = (repo: Repo, rev: string): string =>
  repo.git('log', '-1', '--format=%(trailers:key=Fettle-Kind,valueonly)', rev);

/** A test in a fresh repository holding `files`; the user's HEAD, branches, index, config and hooks must come out unchanged. */
export const scenario = (
  name: string,
  files: Record<string, string | Buffer>,
  body: (repo: Repo) => void,
  todo?: string,
): void => {
  test(name, todo ? { todo } : {}, () => {
    const repo = makeRepo(files);
    const before = stateOf(repo);
    body(repo);
    assert.deepEqual(stateOf(repo), before, "the user's HEAD, branches, index, config and hooks are untouched");
  });
};
