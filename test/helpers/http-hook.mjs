// One hook call made the way Claude Code 2.1.330 makes it in resident mode (docs/HOOK.md, "The resident
// server"): the handlers of the event in the settings file ($FETTLE_TEST_SETTINGS) whose matcher takes the
// tool, run at once: the HTTP hook (headers interpolated from this process's environment, only the variables
// in allowedEnvVars) and the command guard (`sh -c`, the payload on stdin). The result is printed as a command
// hook's would be, so the same assertions read both paths: a block exits 2 with its reason on stderr, a
// warning exits 1, a decision or context is JSON on stdout.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';

const input = readFileSync(0);
let payload = {};
try {
  payload = JSON.parse(input.toString('utf8'));
} catch {
  // malformed input goes out as it came
}
const event = payload.hook_event_name ?? process.env.FETTLE_TEST_EVENT ?? 'PreToolUse';
const settings = JSON.parse(readFileSync(process.env.FETTLE_TEST_SETTINGS, 'utf8'));
const matches = (matcher) =>
  !matcher || matcher === '*'
    ? true
    : /^[\w|, -]+$/.test(matcher)
      ? matcher.split('|').includes(payload.tool_name)
      : new RegExp(matcher).test(payload.tool_name);
// A payload without a tool (malformed input, which Claude Code never sends) goes to the event's first group.
const groups = settings.hooks?.[event] ?? [];
const handlers = (
  payload.tool_name === undefined ? groups.slice(0, 1) : groups.filter((g) => matches(g.matcher))
).flatMap((group) => group.hooks);

const interpolate = (value, allowed) =>
  value.replace(/\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)/g, (_, a, b) =>
    allowed.includes(a ?? b) ? (process.env[a ?? b] ?? '') : '',
  );

const postHttp = (h) =>
  new Promise((resolve) => {
    const headers = { 'content-type': 'application/json' };
    for (const [name, value] of Object.entries(h.headers ?? {}))
      headers[name] = interpolate(value, h.allowedEnvVars ?? []);
    const fail = (why) => resolve({ failed: `[${h.url}]: ${why}`, onFailure: h.onFailure ?? 'continue' });
    const req = request(h.url, { method: 'POST', headers, timeout: (h.timeout ?? 600) * 1000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode < 200 || res.statusCode >= 300) return fail(`HTTP ${res.statusCode}`);
        if (body.trim() === '') return resolve({ code: 0, stdout: '', stderr: '' });
        let json;
        try {
          json = JSON.parse(body);
        } catch {
          return fail('HTTP hook must return JSON');
        }
        if (json.decision === 'block') return resolve({ code: 2, stdout: '', stderr: `${json.reason}\n` });
        if (typeof json.systemMessage === 'string')
          return resolve({ code: 1, stdout: '', stderr: `${json.systemMessage}\n` });
        resolve({ code: 0, stdout: body, stderr: '' });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => fail(e.message));
    req.end(input);
  });

const runCommand = (h, stdin = input) =>
  new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', h.command], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.stdin.on('error', () => undefined);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(stdin);
  });

/**
 * Claude Code runs SessionStart once per session, with CLAUDE_PROJECT_DIR in its hooks' environment. Tests
 * reuse session ids across repositories: it is run again whenever the session's project (or cwd) changes.
 */
const sessionStart = async () => {
  if (typeof payload.session_id !== 'string' || event === 'SessionStart') return;
  const project = process.env.CLAUDE_PROJECT_DIR ?? payload.cwd ?? '';
  const seen = `${process.env.FETTLE_TEST_SETTINGS}.sessions`;
  const key = `${payload.session_id}\t${project}`;
  let known = '';
  try {
    known = readFileSync(seen, 'utf8');
  } catch {
    // first call
  }
  if (known.split('\n').includes(key)) return;
  const start = JSON.stringify({ session_id: payload.session_id, cwd: payload.cwd, hook_event_name: 'SessionStart' });
  for (const group of settings.hooks?.SessionStart ?? [])
    for (const h of group.hooks) if (h.type === 'command') await runCommand(h, start);
  const lines = known.split('\n').filter((l) => l && !l.startsWith(`${payload.session_id}\t`));
  writeFileSync(seen, [...lines, key].join('\n'));
};
await sessionStart();

// An async handler runs in the background: the call does not wait for it, and it cannot block.
const waited = handlers.filter((h) => !h.async);
for (const h of handlers.filter((h) => h.async)) void runCommand(h);
const results = await Promise.all(waited.map((h) => (h.type === 'http' ? postHttp(h) : runCommand(h))));

/** The server's `status`, asked with the session's headers; null when it does not answer. */
const askStatus = (h) =>
  new Promise((resolve) => {
    const headers = { 'content-type': 'application/json' };
    for (const [name, value] of Object.entries(h.headers ?? {}))
      headers[name] = interpolate(value, h.allowedEnvVars ?? []);
    const url = h.url.replace(/[^/]+$/, 'status');
    const req = request(url, { method: 'POST', headers, timeout: 5000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          resolve(null);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(null));
    req.end('{}');
  });

// What the server finishes right after an answer (a superseded proposal's discard) is done before this call
// returns, as it is long before a person or the model looks: the next command a test runs sees it.
const http = waited.find((h) => h.type === 'http');
for (let n = 0; http && n < 250; n++) {
  const status = await askStatus(http);
  if (!status?.completing) break;
  await new Promise((r) => setTimeout(r, 20));
}
const blocks = results.filter((r) => r.code === 2 || (r.failed && r.onFailure === 'block'));
if (blocks.length > 0) {
  process.stderr.write(blocks.map((r) => r.stderr ?? `${r.failed}; blocking because onFailure is "block"\n`).join(''));
  process.exit(2);
}
const decided = results.find((r) => r.code === 0 && r.stdout.trim() !== '');
// Any other exit code, or a failed HTTP hook with onFailure "continue": a non-blocking error.
const warned = results.filter((r) => r.failed || (r.code !== 0 && r.code !== 2));
if (decided) process.stdout.write(decided.stdout);
if (warned.length > 0) process.stderr.write(warned.map((r) => r.stderr || `${r.failed}\n`).join(''));
process.exit(decided || warned.length === 0 ? 0 : 1);
