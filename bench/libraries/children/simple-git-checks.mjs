// Child program: simple-git behaviour checks.
import { cpRunner, fail, out } from './helpers.mjs';

/** simple-git behaviour checks, in one process: per-call cost, env scrubbing, blocked -c, error detection. */
export function simpleGitChecks() {
  const [repo, head, n, idx] = process.argv.slice(2);
  const { simpleGit } = require('simple-git');
  const cp = cpRunner(repo);
  const attempt = async (f) => {
    try {
      return {
        ok: true,
        value: String(await f())
          .trim()
          .slice(0, 160),
      };
    } catch (error) {
      return { ok: false, error: String(error.message).split('\n')[0].slice(0, 160) };
    }
  };
  (async () => {
    const r = {};
    const sg = simpleGit({ baseDir: repo });
    const sgNoExit = simpleGit({ baseDir: repo, completion: { onExit: false } });
    const time = async (f) => {
      const xs = [];
      await f(); // warm-up
      for (let i = 0; i < Number(n); i++) {
        const t = performance.now();
        await f();
        xs.push(performance.now() - t);
      }
      xs.sort((a, b) => a - b);
      return +xs[xs.length >> 1].toFixed(1);
    };
    r.perCallMs = {
      cpRevParse: await time(() => cp(['rev-parse', 'HEAD'])),
      cpUpdateRef: await time(() => cp(['update-ref', 'refs/bench/calls', head])),
      sgRevParse: await time(() => sg.raw(['rev-parse', 'HEAD'])),
      sgUpdateRef: await time(() => sg.raw(['update-ref', 'refs/bench/calls', head])),
      sgNoExitUpdateRef: await time(() => sgNoExit.raw(['update-ref', 'refs/bench/calls', head])),
    };
    // ambient environment: GIT_AUTHOR_NAME set in this process
    process.env.GIT_AUTHOR_NAME = 'ambient-author';
    r.ambientEnv = {
      cp: (await cp(['var', 'GIT_AUTHOR_IDENT'])).toString().includes('ambient-author'),
      sg: (await sg.raw(['var', 'GIT_AUTHOR_IDENT'])).includes('ambient-author'),
    };
    delete process.env.GIT_AUTHOR_NAME;
    // a temporary index through GIT_INDEX_FILE (what a temp-index snapshot needs)
    r.indexFileEnv = {
      default: await attempt(() =>
        simpleGit({ baseDir: repo }).env('GIT_INDEX_FILE', idx).raw(['rev-parse', '--git-path', 'index']),
      ),
      allowEnvironment: await attempt(() =>
        simpleGit({ baseDir: repo, allowEnvironment: ['GIT_INDEX_FILE'] })
          .env('GIT_INDEX_FILE', idx)
          .raw(['rev-parse', '--git-path', 'index']),
      ),
    };
    // hooks off for one command, as fettle runs every command
    r.hooksPathOff = {
      default: await attempt(() => sg.raw(['-c', 'core.hooksPath=/dev/null', 'rev-parse', 'HEAD'])),
      allowUnsafeHooksPath: await attempt(() =>
        simpleGit({ baseDir: repo, unsafe: { allowUnsafeHooksPath: true } }).raw([
          '-c',
          'core.hooksPath=/dev/null',
          'rev-parse',
          'HEAD',
        ]),
      ),
    };
    // a non-zero exit with nothing on stderr
    const missing = await cp(['rev-parse', '--verify', '-q', 'refs/bench/missing']).then(
      () => 0,
      (e) => e.exitCode,
    );
    r.silentFailure = {
      gitExitCode: missing,
      sg: await attempt(() => sg.raw(['rev-parse', '--verify', '-q', 'refs/bench/missing'])),
    };
    return r;
  })().then((r) => {
    out(r);
    process.exit(0);
  }, fail);
}
