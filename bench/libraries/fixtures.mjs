// Fixture repositories: one commit of generated files, packed.
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { git } from './env.mjs';

const pad = (n, w) => String(n).padStart(w, '0');
const fileContent = (i) => {
  const lines = [];
  for (let j = 0; j < 48; j++) lines.push(createHash('sha256').update(`fettle-bench:${i}:${j}`).digest('hex'));
  return Buffer.from(`${lines.join('\n')}\n`);
};

/** One commit on main with dirs × perDir files (pkg/dNNN/sub/fNNNNN.txt, ~3 KB each), then gc into one pack. */
export const buildRepo = async (dir, { dirs, perDir }) => {
  mkdirSync(dir, { recursive: true });
  await git(dir, ['init', '-q', '-b', 'main']);
  for (const [k, v] of [
    ['user.name', 'bench'],
    ['user.email', 'bench@example.invalid'],
    ['gc.auto', '0'],
  ])
    await git(dir, ['config', k, v]);
  // the fast-import stream goes through a file so this process stays small (children inherit nothing big)
  const streamPath = `${dir}.fast-import`;
  const fd = openSync(streamPath, 'w');
  const put = (x) => writeSync(fd, x);
  const msg = 'fixture\n';
  put(
    `commit refs/heads/main\nauthor bench <bench@example.invalid> 1700000000 +0000\ncommitter bench <bench@example.invalid> 1700000000 +0000\ndata ${msg.length}\n${msg}`,
  );
  const readme = Buffer.from('fixture repository for bench/libraries.mjs\n');
  put(`M 100644 inline README.md\ndata ${readme.length}\n`);
  put(readme);
  put('\n');
  let i = 0;
  for (let d = 0; d < dirs; d++) {
    for (let f = 0; f < perDir; f++, i++) {
      const body = fileContent(i);
      put(`M 100644 inline pkg/d${pad(d, 3)}/sub/f${pad(i, 5)}.txt\ndata ${body.length}\n`);
      put(body);
      put('\n');
    }
  }
  put('done\n');
  closeSync(fd);
  const stream = openSync(streamPath, 'r');
  try {
    await git(dir, ['fast-import', '--quiet', '--done'], { stdin: stream });
  } finally {
    closeSync(stream);
    rmSync(streamPath);
  }
  await git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  await git(dir, ['gc', '-q']);
  const packDir = join(dir, '.git', 'objects', 'pack');
  const packs = readdirSync(packDir).filter((f) => f.endsWith('.pack'));
  return {
    path: dir,
    files: i + 1,
    packs: packs.length,
    packBytes: packs.reduce((s, f) => s + statSync(join(packDir, f)).size, 0),
    head: (await git(dir, ['rev-parse', 'HEAD'])).out,
    tree: (await git(dir, ['rev-parse', 'HEAD^{tree}'])).out,
    snapshotDir: `pkg/d${pad(Math.floor(dirs / 2), 3)}/sub`,
  };
};
