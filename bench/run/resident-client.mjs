// A separate client process for the resident server, as Claude Code is one: it POSTs hook JSON to the server
// and times each request end to end (send, answer). Claude Code keeps one connection for a session's hooks
// (seen on 2.1.330), so by default the connection is made, and the server's check of its peer passed, by an
// untimed status request first; with `fresh: true` each request opens its own, and the time includes the
// connection and the peer check. Its own start is not timed. Reads a job as JSON on stdin, prints JSON:
//   {kind: "direct", url, headers, pre, post, file, content}  PreToolUse (timed), the write, PostToolUse (timed)
//   {kind: "staged", url, headers, pre}                       PreToolUse only (it must deny)
//   {kind: "bash", url, headers, pre, post}                    a Bash command that changes nothing: Pre, then
//     Post (both timed; both must answer with nothing to say)
//   {kind: "writes", url, headers, writes: [{pre, post, file, content, read?, prompt?}], shadow?: {gitDir, every?},
//    loose?: {gitDir, every}}
//     many direct writes in a row (the storage case); before a write, its prompt (UserPromptSubmit: a new turn)
//     and a Read of its file (Pre, then unless denied Post with the file's text), then after it a shadow snapshot
//     (untimed) and every `loose.every` writes the loose-object count of the repository
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const job = JSON.parse(readFileSync(0, 'utf8'));
const agent = job.fresh ? false : new Agent({ keepAlive: true, maxSockets: 1 });

const post = (event, body) =>
  new Promise((resolve, reject) => {
    const t = performance.now();
    const req = request(
      `${job.url}${event}`,
      { method: 'POST', headers: { ...job.headers, 'content-type': 'application/json' }, agent },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ ms: performance.now() - t, status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const direct = async (w) => {
  const pre = await post('PreToolUse', w.pre);
  if (pre.status !== 200 || pre.body.trim() !== '') return { failed: `PreToolUse answered ${pre.status} ${pre.body}` };
  writeFileSync(w.file, w.content);
  const after = await post('PostToolUse', w.post);
  if (after.status !== 200 || !after.body.includes('additionalContext'))
    return { failed: `PostToolUse answered ${after.status} ${after.body}` };
  return { pre: pre.ms, post: after.ms };
};

/** A Read as Claude Code runs it with the Read hook on: Post (with the file's text) only when Pre let it through. */
const readOf = async (file, read) => {
  const pre = await post('PreToolUse', read.pre);
  if (pre.status !== 200) return { failed: `Read PreToolUse answered ${pre.status} ${pre.body}` };
  if (pre.body.includes('"permissionDecision":"deny"')) return {};
  const shown = readFileSync(file, 'utf8').replace(/\n$/, '');
  const numLines = shown.split('\n').length;
  const response = {
    type: 'text',
    file: { filePath: file, content: shown, numLines, startLine: 1, totalLines: numLines },
  };
  const after = await post('PostToolUse', JSON.stringify({ ...JSON.parse(read.post), tool_response: response }));
  return after.status === 200 ? {} : { failed: `Read PostToolUse answered ${after.status} ${after.body}` };
};

const looseCount = (gitDir) =>
  Number(/^count: (\d+)/m.exec(execFileSync('git', ['--git-dir', gitDir, 'count-objects', '-v']).toString())?.[1]);

/** One write of the storage case, after its turn's prompt and a Read of its file where the job has them. */
const writeInTurn = async (w) => {
  const turn = w.prompt ? await post('UserPromptSubmit', w.prompt) : { status: 200 };
  if (turn.status !== 200) return { failed: `UserPromptSubmit answered ${turn.status} ${turn.body}` };
  const read = w.read ? await readOf(w.file, w.read) : {};
  return read.failed ? read : direct(w);
};

let out;
// The session's connection, made and checked before the timed calls; a few calls warm this process's HTTP
// code as a session's first hooks warm Claude Code's.
if (agent) for (let n = 0; n < 3; n++) await post('status', '{}');
if (job.kind === 'direct') out = await direct(job);
else if (job.kind === 'staged') {
  const pre = await post('PreToolUse', job.pre);
  out = pre.body.includes('"permissionDecision":"deny"')
    ? { pre: pre.ms }
    : { failed: `staged PreToolUse answered ${pre.status} ${pre.body.slice(0, 500)}` };
} else if (job.kind === 'bash') {
  const pre = await post('PreToolUse', job.pre);
  const after = pre.status === 200 && pre.body.trim() === '' ? await post('PostToolUse', job.post) : pre;
  out =
    after.status === 200 && after.body.trim() === ''
      ? { pre: pre.ms, post: after.ms }
      : { failed: `Bash hook answered ${after.status} ${after.body.slice(0, 500)}` };
} else {
  const loose = [];
  const shadowEnv = job.shadow && { ...process.env, GIT_DIR: job.shadow.gitDir, GIT_WORK_TREE: job.shadow.workTree };
  for (const [n, w] of job.writes.entries()) {
    const r = await writeInTurn(w);
    if (r.failed) {
      out = { failed: `write ${n}: ${r.failed}` };
      break;
    }
    if (shadowEnv) {
      execFileSync('git', ['-c', 'gc.auto=0', 'add', '-A'], { env: shadowEnv, cwd: job.shadow.workTree });
      execFileSync('git', ['-c', 'gc.auto=0', 'commit', '-q', '--no-verify', '-m', `checkpoint ${n}`], {
        env: shadowEnv,
        cwd: job.shadow.workTree,
      });
    }
    if (job.loose && (n + 1) % job.loose.every === 0) loose.push(looseCount(job.loose.gitDir));
  }
  out ??= { loose };
}
process.stdout.write(JSON.stringify(out));
if (agent) agent.destroy();
