// The text table of a run (or of a saved --json run).

export const table = (r) => {
  const lines = [];
  const row = (cells, widths) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  const fl = r.processes.floor.wallMs.median;
  const w = [46, 8, 13, 6, 8, 7];
  const proc = (label, p) =>
    row(
      [
        label,
        p.wallMs.median,
        `${p.wallMs.p25}-${p.wallMs.p75}`,
        label.startsWith('node -e') ? '' : String(Math.round(p.wallMs.median - fl) || 0),
        p.cpuMs ? p.cpuMs.median : '',
        p.peakRssMB ?? '',
      ],
      w,
    );
  lines.push(
    `fettle library bench (${r.mode}, ${r.runs} runs): node ${r.environment.node}, ${r.environment.git}, ${r.environment.platform}, ${r.environment.cpus} cpus`,
  );
  lines.push(
    `isomorphic-git ${r.environment.packages['isomorphic-git']}, simple-git ${r.environment.packages['simple-git']}; load average at start ${r.environment.loadavgAtStart.join(' ')}, at end ${r.environment.loadavgAtEnd.join(' ')}`,
  );
  lines.push(
    `fixtures: ${Object.entries(r.fixtures)
      .map(([k, f]) => `${k} ${f.files} files / ${f.packs} pack / ${f.packMB} MB`)
      .join('; ')}`,
  );
  lines.push('');
  lines.push('Fresh node process per run. wall = spawn to exit in ms (median, p25-p75); +floor = median - node -e 0;');
  lines.push('cpu = median CPU ms of node plus its git children; rss = median peak RSS of the node process (MB).');
  lines.push(row(['case', 'wall', 'p25-p75', '+floor', 'cpu', 'rss'], w));
  lines.push(proc('node -e 0 (floor)', r.processes.floor));
  lines.push(proc('empty .cjs script', r.processes.emptyScript));
  for (const [k, p] of Object.entries(r.processes.import))
    lines.push(proc(`require ${k}${p.loadedWith === 'import' ? ' (via import())' : ''}`, p));
  for (const [repo, vs] of Object.entries(r.processes.snapshot)) {
    lines.push(`snapshot, ${repo} repo (${r.fixtures[repo].files} files, ${r.fixtures[repo].packMB} MB pack):`);
    for (const [v, p] of Object.entries(vs)) lines.push(proc(`  ${r.variants[v]}`, p));
  }
  lines.push(
    `same tree from every variant: ${JSON.stringify(r.sameTreeFromAllVariants)}; validation problems: ${r.validationProblems.length}`,
  );
  for (const p of r.validationProblems) lines.push(`  ${p}`);
  lines.push('');
  lines.push(`Race: ${r.race.iso.processes} processes x ${r.race.iso.updatesEach} compare-and-swap updates of one ref`);
  for (const [k, x] of Object.entries(r.race)) {
    const kinds = Object.keys(x.errorKinds).length
      ? ` (${Object.entries(x.errorKinds)
          .map(([e, c]) => `${e} ${c}`)
          .join(', ')})`
      : '';
    lines.push(
      `  ${k.padEnd(14)} survived ${x.survived}/${x.attempted} (lost ${x.lost}); workers reported ${x.reportedLanded} landed, ${x.retries} retries, ${x.errors} errors${kinds}; ${x.wallMs} ms`,
    );
  }
  lines.push('');
  lines.push('Linked worktree (git worktree add), isomorphic-git with dir = the worktree:');
  for (const [k, v] of Object.entries(r.linkedWorktree.iso))
    lines.push(`  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  lines.push(
    `  control: ref written in the worktree by git CLI seen: ${r.linkedWorktree.gitCliRefSeen}; by simple-git: ${r.linkedWorktree.simpleGitRefSeen}`,
  );
  lines.push('');
  const s = r.simpleGit;
  const res = (x) => (x.ok ? `ok (${x.value})` : `rejected: ${x.error}`);
  lines.push('simple-git checks (in-process, median ms per call):');
  lines.push(
    `  ${Object.entries(s.perCallMs)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  lines.push(`  ambient GIT_AUTHOR_NAME reaches git: child_process ${s.ambientEnv.cp}, simple-git ${s.ambientEnv.sg}`);
  lines.push(`  .env('GIT_INDEX_FILE', x): default -> ${res(s.indexFileEnv.default)}`);
  lines.push(`                             allowEnvironment -> ${res(s.indexFileEnv.allowEnvironment)}`);
  lines.push(`  -c core.hooksPath=/dev/null: default -> ${res(s.hooksPathOff.default)}`);
  lines.push(`                               allowUnsafeHooksPath -> ${res(s.hooksPathOff.allowUnsafeHooksPath)}`);
  lines.push(
    `  rev-parse --verify -q <missing> (git exits ${s.silentFailure.gitExitCode}): simple-git ${s.silentFailure.sg.ok ? `resolved ${JSON.stringify(s.silentFailure.sg.value)}` : `rejected: ${s.silentFailure.sg.error}`}`,
  );
  lines.push('');
  if (r.bundles) {
    lines.push(
      `esbuild bundles built as scripts/build.mjs does (not written): hook bundle src/hook/process.ts -> ${r.bundles.hook.packages.join(', ')} (${r.bundles.hook.bytes} bytes);`,
    );
    lines.push(
      `  commands bundle src/commands/index.ts -> ${r.bundles.commands.packages.join(', ')} (${r.bundles.commands.bytes} bytes)`,
    );
    lines.push('');
  }
  if (r.jsdiff) {
    lines.push(
      `jsdiff (diff ${r.environment.projectPackages.diff}) vs git, single runs; lines of 64 hex chars; fettle's timeout is ${r.jsdiff.fettleTimeoutMs} ms:`,
    );
    for (const x of r.jsdiff.rows) {
      const label = `${x.tool}, ${x.lines} lines, ${x.mode === 'rewrite' ? 'full rewrite' : '1% changed'}${x.timeout === 'none' ? '' : `, timeout ${x.timeout}`}`;
      lines.push(`  ${label.padEnd(62)} ${String(x.inProcessMs).padStart(8)} ms in-process  -> ${x.result}`);
    }
    lines.push('');
  }
  lines.push(`total ${r.totalSeconds} s (fixtures ${Math.round(r.fixtureBuildMs / 1000)} s)`);
  return `${lines.join('\n')}\n`;
};
