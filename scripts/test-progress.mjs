// A node:test reporter that prints one line as each test file finishes, counting the files done. The spec
// reporter shows a file's tests only once every file before it has finished, so alone it can sit silent on a
// slow file while others complete; this line says which files are done, and which failed, as it happens. At the
// end, the ten slowest files: where the suite's time goes.
import { relative } from 'node:path';

const total = Number(process.env.FETTLE_TEST_FILE_COUNT) || 0;

export default async function* progress(source) {
  let done = 0;
  const times = [];
  for await (const { type, data } of source) {
    // A file's own completion: the event named after the file, at the top level.
    if (type !== 'test:complete' || data.nesting !== 0 || !data.file || data.name !== data.file) continue;
    done++;
    const count = total ? `${done}/${total}` : `${done}`;
    const seconds = (data.details.duration_ms / 1000).toFixed(1);
    times.push([data.details.duration_ms, relative(process.cwd(), data.file)]);
    const verdict = data.details.passed ? 'done' : 'FAILED';
    yield `[${count} files] ${relative(process.cwd(), data.file)} ${verdict} in ${seconds} s\n`;
  }
  const slowest = times.sort((a, b) => b[0] - a[0]).slice(0, 10);
  yield `\nThe ten slowest test files:\n${slowest.map(([ms, file]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`).join('\n')}\n`;
}
