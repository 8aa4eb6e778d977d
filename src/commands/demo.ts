// `fettle demo`: the whole protocol in a throwaway repository, run through this very CLI as separate
// processes (exactly as a script or the agent would), narrated.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from '../errors';
import { gitEnv } from '../io/child-env';
import { selfCommand, shellQuote } from '../io/self';
import type { Edge } from './edge';

const lines = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => `${word} line ${i + 1}`).join('\n') + '\n';

/** Runs one step of the demo: its exit code, and what it printed (stdout then stderr). */
type Run = (cmd: string, args: string[], input?: string) => { code: number; out: string };

/** Runs a step in `repo`, first printing it as a shell would run it (arguments quoted, so zsh expands no glob). */
const stepRunner = (edge: Edge, env: Record<string, string>, repo: string): Run => {
  const say = (text: string) => edge.io.out(text);
  const self = selfCommand(edge.env, edge.io.script);
  return (cmd, args, input) => {
    const shown = [cmd === 'fettle' ? self : cmd, ...args.map(shellQuote)].join(' ');
    say(`$ ${shown}${input === undefined ? '' : ' < (new content)'}`);
    const exe = cmd === 'fettle' ? process.execPath : cmd;
    const argv = cmd === 'fettle' ? [edge.io.script ?? 'fettle', ...args] : args;
    const r = spawnSync(exe, argv, { cwd: repo, env, input: input ?? '', encoding: 'utf8' });
    const out = `${r.stdout}${r.stderr}`.trimEnd();
    if (out)
      say(
        out
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n'),
      );
    say('');
    return { code: r.status ?? 1, out };
  };
};

/** The throwaway repository: notes.txt, 16 lines, committed on main. */
const initRepo = (repo: string, env: Record<string, string>): void => {
  spawnSync('git', ['init', '-q', '-b', 'main', repo], { env });
  writeFileSync(join(repo, 'notes.txt'), lines(16, 'original'));
  spawnSync('git', ['-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'add', '.'], { cwd: repo, env });
  spawnSync('git', ['-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'commit', '-qm', 'initial'], {
    cwd: repo,
    env,
  });
};

/** The story: a small write goes through, a large one is staged and confirmed, another is discarded. */
const narrate = (say: (text: string) => void, run: Run): void => {
  say('1. A small change (one line of 16) goes straight through; the previous bytes are committed first.');
  const small = lines(16, 'original').replace('original line 3\n', 'edited line 3\n');
  run('fettle', ['write', 'notes.txt'], small);

  say('2. A large change (every line rewritten) is staged: nothing is written, the diff is shown.');
  const staged = run('fettle', ['write', 'notes.txt'], lines(16, 'rewritten'));
  const id = /Staged change ([0-9a-z]{8})/.exec(staged.out)?.[1];
  if (staged.code !== EXIT.staged || !id) throw new Error('the large write was not staged');
  say('   Everything is plain git:');
  run('git', ['log', '--oneline', '--glob=fettle/*']);
  run('git', ['diff', '--stat', 'HEAD', `fettle/${id}`]);

  say('3. Confirm applies it (checking the file still holds what was recorded).');
  run('fettle', ['status']);
  run('fettle', ['confirm', id]);

  say('4. Another large change, this time discarded: the file is left alone.');
  const second = run('fettle', ['write', 'notes.txt'], lines(16, 'unwanted'));
  const id2 = /Staged change ([0-9a-z]{8})/.exec(second.out)?.[1];
  if (!id2) throw new Error('the second large write was not staged');
  run('fettle', ['discard', id2]);
  run('fettle', ['status']);
  run('git', ['status', '--short']);
  say("The repository's HEAD, branches and index were never touched; fettle's history lives under refs/fettle/.");
};

export const demo = async (edge: Edge): Promise<number> => {
  const dir = mkdtempSync(join(tmpdir(), 'fettle-demo-'));
  // The caller's GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE must not steer the demo's git into their repository.
  const env = { ...gitEnv(edge.env), FETTLE_DATA_DIR: join(dir, '.data'), GIT_CONFIG_NOSYSTEM: '1', HOME: dir };
  const say = (text: string) => edge.io.out(text);
  const repo = join(dir, 'repo');
  const run = stepRunner(edge, env, repo);
  try {
    initRepo(repo, env);
    say(`fettle demo, in a throwaway repository: ${repo}\n`);
    narrate(say, run);
    return EXIT.ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
