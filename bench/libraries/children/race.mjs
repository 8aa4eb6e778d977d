// Child programs for the ref race: many processes updating one ref.
import { cpRunner, out } from './helpers.mjs';

/** Race worker, isomorphic-git: read ref, write commit, re-check the ref, writeRef (its only guard). */
export function raceIso() {
  const [repo, ref, tree, id, n] = process.argv.slice(2);
  const git = require('isomorphic-git');
  const fs = require('fs');
  const dir = repo;
  process.stdout.write('ready\n');
  process.stdin.once('data', async () => {
    let landed = 0;
    let retries = 0;
    let errors = 0;
    const errorKinds = {};
    for (let attempt = 0; landed < Number(n) && attempt < 2000; attempt++) {
      try {
        const old = await git.resolveRef({ fs, dir, ref });
        const who = {
          name: 'bench',
          email: 'bench@example.invalid',
          timestamp: 1700000000 + attempt,
          timezoneOffset: 0,
        };
        const c = await git.writeCommit({
          fs,
          dir,
          commit: { message: `w${id} u${landed} a${attempt}\n`, tree, parent: [old], author: who, committer: who },
        });
        const now = await git.resolveRef({ fs, dir, ref });
        if (now !== old) {
          retries++;
          continue;
        }
        await git.writeRef({ fs, dir, ref, value: c, force: true });
        landed++;
      } catch (error) {
        errors++; // e.g. a ref file read while another process was rewriting it
        const kind = error.code || error.name || 'Error';
        errorKinds[kind] = (errorKinds[kind] || 0) + 1;
      }
    }
    out({ landed, retries, errors, errorKinds });
    process.exit(0);
  });
}

/** Race worker, git CLI: rev-parse, commit-tree, `update-ref <ref> <new> <old>`; a failed CAS is retried. */
export function raceGit() {
  const [repo, ref, tree, id, n] = process.argv.slice(2);
  const run = cpRunner(repo);
  const text = async (args, input) => (await run(args, input)).toString('utf8').trim();
  process.stdout.write('ready\n');
  process.stdin.once('data', async () => {
    let landed = 0;
    let retries = 0;
    let errors = 0;
    for (let attempt = 0; landed < Number(n) && attempt < 2000; attempt++) {
      try {
        const old = await text(['rev-parse', '--verify', ref]);
        const c = await text(['commit-tree', tree, '-p', old], `w${id} u${landed} a${attempt}\n`);
        try {
          await run(['update-ref', ref, c, old]);
          landed++;
        } catch {
          retries++;
        }
      } catch {
        errors++;
      }
    }
    out({ landed, retries, errors });
    process.exit(0);
  });
}
