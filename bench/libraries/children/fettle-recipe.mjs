// Child program: fettle's own snapshot recipe.
import { cpRunner, fail, out, snapshotContent } from './helpers.mjs';

/**
 * fettle's own recipe (src/store/objects.ts, refs.ts), in plain JS: 6 git processes (rev-parse, hash-object,
 * one cat-file --batch for the trees along the path, one mktree --batch for all new trees whose ids are
 * computed in-process, commit-tree, update-ref --stdin), fettle's pinned -c options (src/store/git.ts,
 * including core.fsync) and its explicit fsync of the trees mktree wrote.
 */
export function snapFettleRecipe() {
  const [repo, ref, path, token] = process.argv.slice(2);
  const { createHash } = require('crypto');
  const fs = require('fs');
  const { join } = require('path');
  const PINNED = [
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.fsync=loose-object,reference,index',
    '-c',
    'core.fsyncMethod=fsync',
    '-c',
    'commit.gpgSign=false',
    '-c',
    'core.fsmonitor=false',
    '-c',
    'core.quotePath=false',
    '-c',
    'gc.auto=0',
    '-c',
    'maintenance.auto=false',
    '-c',
    'advice.detachedHead=false',
  ];
  const run = cpRunner(repo, PINNED);
  const text = async (args, input) => (await run(args, input)).toString('utf8').trim();
  const parseTree = (raw) => {
    const entries = [];
    for (let i = 0; i < raw.length; ) {
      const sp = raw.indexOf(0x20, i);
      const nul = raw.indexOf(0, sp);
      entries.push({
        mode: raw.subarray(i, sp).toString('latin1'),
        name: Buffer.from(raw.subarray(sp + 1, nul)),
        oid: raw.subarray(nul + 1, nul + 21).toString('hex'),
      });
      i = nul + 21;
    }
    return entries;
  };
  const key = (e) => (e.mode === '40000' ? Buffer.concat([e.name, Buffer.from('/')]) : e.name);
  const encode = (entries) =>
    Buffer.concat(
      [...entries]
        .sort((a, b) => Buffer.compare(key(a), key(b)))
        .flatMap((e) => [Buffer.from(`${e.mode} `), e.name, Buffer.from([0]), Buffer.from(e.oid, 'hex')]),
    );
  (async () => {
    const head = await text(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
    const blob = await text(['hash-object', '-w', '--stdin'], snapshotContent(token));
    const segs = path.split('/');
    const specs = segs.map((_, d) => `${head}:${segs.slice(0, d).join('/')}`);
    const batch = await run(['cat-file', '--batch', '-z'], Buffer.concat(specs.map((s) => Buffer.from(`${s}\0`))));
    const levels = [];
    for (let i = 0, n = 0; n < specs.length; n++) {
      const eol = batch.indexOf(0x0a, i);
      const size = Number(batch.subarray(i, eol).toString().split(' ')[2]);
      levels.push(parseTree(batch.subarray(eol + 1, eol + 1 + size)));
      i = eol + 1 + size + 1;
    }
    const trees = [];
    let child = { mode: '100644', oid: blob };
    for (let d = segs.length - 1; d >= 0; d--) {
      const name = Buffer.from(segs[d]);
      const entries = levels[d].filter((e) => !e.name.equals(name));
      entries.push({ ...child, name });
      const body = encode(entries);
      const oid = createHash('sha1').update(`tree ${body.length}\0`).update(body).digest('hex');
      trees.push({ oid, entries });
      child = { mode: '40000', oid };
    }
    const input = Buffer.concat(
      trees.flatMap((t) => [
        ...t.entries.map((e) =>
          Buffer.concat([
            Buffer.from(`${e.mode} ${e.mode === '40000' ? 'tree' : 'blob'} ${e.oid}\t`),
            e.name,
            Buffer.from([0]),
          ]),
        ),
        Buffer.from([0]),
      ]),
    );
    const printed = (await text(['mktree', '-z', '--batch'], input)).split('\n');
    trees.forEach((t, i) => {
      if (printed[i] !== t.oid) throw new Error(`tree id mismatch ${printed[i]} != ${t.oid}`);
    });
    // fettle knows its common dir from locating the store; the fixtures are plain repositories
    const dirsToSync = new Set();
    for (const t of trees) {
      const dir = join(repo, '.git', 'objects', t.oid.slice(0, 2));
      try {
        const fd = fs.openSync(join(dir, t.oid.slice(2)), 'r');
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        dirsToSync.add(dir);
      } catch {}
    }
    for (const dir of dirsToSync) {
      const fd = fs.openSync(dir, 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
    const tree = trees[trees.length - 1].oid;
    const when = `@${Math.floor(Date.now() / 1000)} +0000`;
    const commit = await new Promise((resolve, reject) => {
      const { spawn } = require('child_process');
      const c = spawn('git', [...PINNED, 'commit-tree', '--no-gpg-sign', tree, '-p', head], {
        cwd: repo,
        env: { ...process.env, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when },
      });
      const o = [];
      c.stdout.on('data', (x) => o.push(x));
      c.on('close', (code) =>
        code === 0 ? resolve(Buffer.concat(o).toString().trim()) : reject(new Error(`commit-tree ${code}`)),
      );
      c.stdin.end('snapshot\n');
    });
    await run(['update-ref', '-m', 'snapshot', '--stdin'], `create ${ref} ${commit}\n`);
    return { blob, tree, commit };
  })().then(out, fail);
}
