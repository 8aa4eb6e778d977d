// Functions copied as source text into every child script (see ../child-scripts.mjs): each must stand alone
// apart from require() and the other helpers.

/** The bytes every snapshot stores (~2.5 KB); the parent recomputes them to check what was written. */
export function snapshotContent(token) {
  return Buffer.from(`snapshot ${token}\n${'the quick brown fox jumps over the lazy dog 0123456789\n'.repeat(45)}`);
}

/**
 * Prints the result with this process's peak RSS and CPU time. On Linux the peak is VmHWM (ru_maxrss would
 * include the parent's size at fork) and the CPU time includes the git children already reaped (cutime/cstime).
 */
export function out(value) {
  const fs = require('fs');
  const cpu = process.cpuUsage();
  let cpuMs = (cpu.user + cpu.system) / 1000;
  let rssKB = process.resourceUsage().maxRSS;
  try {
    rssKB = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    cpuMs += ((Number(fields[13]) + Number(fields[14])) * 1000) / Number(process.env.BENCH_CLK_TCK || 100);
  } catch {}
  fs.writeSync(1, `${JSON.stringify({ ...value, rssKB, cpuMs })}\n`);
}

export function fail(error) {
  require('fs').writeSync(2, `${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
}

/** git through child_process.spawn; resolves stdout as text, rejects on a non-zero exit. */
export function cpRunner(cwd, prefix) {
  const { spawn } = require('child_process');
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = spawn('git', [...(prefix || []), ...args], { cwd, stdio: 'pipe' });
      const o = [];
      const e = [];
      child.stdout.on('data', (c) => o.push(c));
      child.stderr.on('data', (c) => e.push(c));
      child.on('error', reject);
      child.stdin.on('error', () => undefined);
      child.on('close', (code) => {
        if (code === 0) resolve(Buffer.concat(o));
        else {
          const err = new Error(`git ${args[0]} exited ${code}: ${Buffer.concat(e).toString().trim()}`);
          err.exitCode = code;
          reject(err);
        }
      });
      child.stdin.end(input === undefined ? '' : input);
    });
}

/**
 * The text plumbing shared by the simple-git and child_process variants (12 git processes):
 * rev-parse, hash-object -w --stdin, ls-tree per level (4), mktree per level bottom-up (4), commit-tree,
 * update-ref <ref> <new> <zero> (create only if absent). `run(args, input)` returns stdout as text.
 */
export async function textPlumbing(run, ref, path, token) {
  const head = (await run(['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  const blob = (await run(['hash-object', '-w', '--stdin'], snapshotContent(token))).trim();
  const segs = path.split('/');
  const dirs = segs.slice(0, -1);
  const levels = [];
  for (let d = 0; d <= dirs.length; d++) {
    const listing = await run(['ls-tree', '-z', `${head}:${dirs.slice(0, d).join('/')}`]);
    levels.push(listing.split('\0').filter(Boolean));
  }
  let child = `100644 blob ${blob}`;
  let tree = '';
  for (let d = dirs.length; d >= 0; d--) {
    const name = segs[d];
    const entries = levels[d].filter((l) => l.slice(l.indexOf('\t') + 1) !== name);
    entries.push(`${child}\t${name}`);
    tree = (await run(['mktree', '-z'], `${entries.join('\0')}\0`)).trim();
    child = `040000 tree ${tree}`;
  }
  const commit = (await run(['commit-tree', tree, '-p', head], 'snapshot\n')).trim();
  await run(['update-ref', ref, commit, '0'.repeat(40)]);
  return { blob, tree, commit };
}
