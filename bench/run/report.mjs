// The results table (stdout, or stderr with --json) and the --json document.
import { opts, RUNS, SIZES } from './options.mjs';
import { hookPlan } from './hook-calls.mjs';
import { T0 } from './progress.mjs';
import { info, notes, results, spawnCounts } from './results.mjs';

const fmtMs = (v) => (v === undefined || v === null || Number.isNaN(v) ? '—' : `${v.toFixed(v < 10 ? 1 : 0)} ms`);
const fmtCell = (s) =>
  s === null || s === undefined
    ? '—'
    : s.unit === 'MB'
      ? `${s.median.toFixed(s.median < 10 ? 2 : 1)} MB`
      : s.unit
        ? `${s.median} ${s.unit}`
        : fmtMs(s.median);
const fmtTarget = (t) =>
  t.value === null
    ? '—'
    : t.op === 'ms<='
      ? `≤ ${t.value} ms`
      : t.op === 'MB<='
        ? `≤ ${t.value} MB`
        : `${{ '<=': '≤', '>=': '≥', '<': '<' }[t.op]} ${t.value}`;
const fmtMet = (r) => (r.met === null ? (opts.quick ? 'n/a (quick)' : 'n/a') : r.met ? 'yes' : 'NO');

const report = (machine, build) => {
  const rows = results.map((r) => [
    r.id,
    r.name,
    fmtCell(r.fettle),
    fmtCell(r.baseline),
    r.ratio === null || r.ratio === undefined ? '—' : r.ratio.toFixed(2),
    fmtTarget(r.target),
    fmtMet(r) + (r.note ? ` (${r.note})` : ''),
  ]);
  const header = ['case', 'what', 'fettle median', 'baseline median', 'ratio', 'target', 'met?'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const out = [];
  out.push(`fettle bench${opts.quick ? ' --quick (tiny fixtures: verdicts are not meaningful)' : ''}`);
  out.push(
    `node ${machine.node}, git ${machine.git}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.os}, ${machine.memoryGiB} GiB RAM`,
  );
  out.push(
    `1-minute load average: ${machine.loadAverage.start} at the start, ${machine.loadAverage.end} at the end (${machine.cpus} CPUs)`,
  );
  out.push(
    `dist/ (bytes): ${build.bundles}; sha256 ${build.sha256}${build.commit ? `, built from ${build.commit}${build.uncommittedChanges ? ' plus uncommitted changes in src/' : ''}` : ''}`,
  );
  out.push(
    `${RUNS} timed runs per side, alternating with the baseline after one warm-up round; medians. Blocking hook events: ${['PreToolUse', 'PostToolUse'].filter((e) => hookPlan[e].registered && hookPlan[e].blocking).join(' + ')}.`,
  );
  out.push('');
  out.push(line(header));
  out.push(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) out.push(line(r));
  if (info.length) {
    out.push('');
    out.push('Details (no target):');
    for (const i of info) {
      const value =
        i.ratio !== undefined
          ? `ratio ${i.ratio.toFixed(2)}`
          : i.unit === 'MB' && i.n === 1
            ? `${i.median.toFixed(2)} MB`
            : i.unit === 'MB'
              ? `median ${i.median.toFixed(1)} MB (min ${i.min.toFixed(1)}, max ${i.max.toFixed(1)}, n ${i.n})`
              : i.unit
                ? `${i.median} ${i.unit === 'count' ? '' : i.unit}`.trim()
                : `median ${fmtMs(i.median)}${i.n > 1 ? ` (min ${fmtMs(i.min)}, max ${fmtMs(i.max)}, n ${i.n})` : ''}`;
      out.push(`  ${i.id.padEnd(13)} ${i.name}: ${value}`);
    }
  }
  if (Object.keys(spawnCounts).length) {
    out.push('');
    out.push('git processes spawned per hook path:');
    for (const [path, list] of Object.entries(spawnCounts))
      out.push(`  ${path}: ${list.length}  [${list.map((l) => l.split(' ')[0]).join(', ')}]`);
  }
  for (const n of notes) out.push(`note: ${n}`);
  return out.join('\n');
};

export const writeReport = (machine, build, exitCode) => {
  const total = (performance.now() - T0) / 1000;
  if (opts.json) {
    // the table still goes to stderr with the progress lines, for whoever watches the run
    process.stderr.write(`${report(machine, build)}\n`);
    process.stdout.write(
      `${JSON.stringify({ quick: opts.quick, runs: RUNS, totalSeconds: Math.round(total), machine, build, hookPlan, sizes: SIZES, results, info, spawnCounts, notes, failed: exitCode !== 0 }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(
      `${report(machine, build)}\n\n${exitCode ? 'bench FAILED (see above); ' : ''}total ${total.toFixed(0)} s\n`,
    );
  }
};
