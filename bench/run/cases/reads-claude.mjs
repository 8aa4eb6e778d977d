// Case `reads`, Claude Code's side: the same scripted session through the Read hook (`fettle install --read`), one
// `fettle hook` process per event as the client runs them. A Read is its PreToolUse and, unless that denied it, the
// tool's text (the file's numbered lines, as a plain Read sends) and its PostToolUse with that text. What the model
// gets: a denied Read's one line, or the lines with the note fettle puts beside a changed file. Without fettle:
// the lines every time. Every "unchanged" is checked against the bytes the session holds. The hook's cost per call
// (median ms of the blocking processes) is reported beside a direct write's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookOnce, nextToolUseId } from '../hook-calls.mjs';
import { info } from '../results.mjs';
import { stats } from '../timing.mjs';

const SESSION = 'bench-claude-reads';

/** A plain Read's text: the lines numbered as the tool shows them (the size is what counts here). */
const numbered = (text) => {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n');
};

const event = (repo, name, hook_event_name, extra) =>
  JSON.stringify({
    session_id: SESSION,
    transcript_path: '/dev/null',
    cwd: repo,
    permission_mode: 'acceptEdits',
    hook_event_name,
    tool_name: 'Read',
    tool_input: { file_path: join(repo, name) },
    tool_use_id: nextToolUseId(),
    ...extra,
  });

const prompt = (repo) =>
  hookOnce(repo, JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: SESSION, prompt: 'go', cwd: repo }));

/** One Read as Claude Code runs it: what reached the model, whether it was the one line, and the hook's ms. */
const readOnce = (repo, name) => {
  const pre = hookOnce(repo, event(repo, name, 'PreToolUse'));
  if (pre.denied) return { sent: pre.json.hookSpecificOutput.permissionDecisionReason, short: true, ms: pre.ms };
  const text = readFileSync(join(repo, name), 'utf8');
  const shown = text.replace(/\n$/, '');
  const file = { filePath: join(repo, name), content: shown, numLines: shown.split('\n').length, startLine: 1 };
  const response = { type: 'text', file: { ...file, totalLines: file.numLines } };
  const post = hookOnce(repo, event(repo, name, 'PostToolUse', { tool_response: response }));
  const note = pre.json?.hookSpecificOutput?.additionalContext ?? '';
  return { sent: `${note}${numbered(text)}`, short: false, ms: pre.ms + post.ms };
};

/** A Write of the session's own, as Claude Code runs it (PreToolUse, the tool, PostToolUse). */
const writeOnce = (repo, name, content) => {
  const id = nextToolUseId();
  const call = (hook_event_name) =>
    JSON.stringify({
      session_id: SESSION,
      transcript_path: '/dev/null',
      cwd: repo,
      permission_mode: 'acceptEdits',
      hook_event_name,
      tool_name: 'Write',
      tool_input: { file_path: join(repo, name), content },
      tool_use_id: id,
    });
  const pre = hookOnce(repo, call('PreToolUse'));
  if (pre.denied) return pre.ms;
  writeFileSync(join(repo, name), content);
  return pre.ms + hookOnce(repo, call('PostToolUse')).ms;
};

/** The session over `names` in `repo` (holding `older`), moved to `newer` by `put` halfway. */
export const claudeReads = (repo, names, put, newer) => {
  const tally = { first: 0, unchanged: 0, moved: 0, written: 0, plain: {}, wrong: 0, readMs: [], writeMs: [] };
  for (const k of ['first', 'unchanged', 'moved', 'written']) tally.plain[k] = 0;
  const held = new Map();
  const read = (name, kind) => {
    const disk = readFileSync(join(repo, name), 'utf8');
    const r = readOnce(repo, name);
    if (r.short && held.get(name) !== disk) tally.wrong++;
    held.set(name, disk);
    tally[kind] += Buffer.byteLength(r.sent);
    tally.plain[kind] += Buffer.byteLength(numbered(disk));
    tally.readMs.push(r.ms);
  };
  prompt(repo);
  for (const n of names) read(n, 'first');
  prompt(repo);
  for (const n of names) read(n, 'unchanged');
  put(newer);
  prompt(repo);
  for (const n of names) read(n, 'moved');
  for (const n of names.slice(0, 8)) {
    const edited = `${readFileSync(join(repo, n), 'utf8')}// touched by the bench\n`;
    tally.writeMs.push(writeOnce(repo, n, edited));
    // the session wrote these bytes: it holds them
    held.set(n, edited);
    read(n, 'written');
  }
  return tally;
};

/** The rows of the Claude Code side, beside fettle_read's. */
export const reportClaudeReads = (t, files) => {
  const reread = t.unchanged + t.moved + t.written;
  const plain = t.plain.unchanged + t.plain.moved + t.plain.written;
  const fewer = (a, b) => `${Math.round(100 * (1 - a / b))} %`;
  info.push({
    id: 'reads-claude',
    name: `case reads, Claude Code's Read hook: re-reads of ${files} files: ${reread} bytes vs ${plain} for a plain Read (${fewer(reread, plain)} fewer, about ${Math.round((plain - reread) / 4)} tokens by bytes / 4, an estimate); wrong answers ${t.wrong}`,
    median: reread,
    unit: 'bytes',
  });
  for (const [k, what] of [
    ['unchanged', 'unchanged files'],
    ['moved', 'files changed outside the session'],
    ['written', 'files the session wrote'],
  ])
    info.push({
      id: `reads-claude-${k}`,
      name: `case reads, Claude Code: re-reads of ${what}: ${t[k]} bytes vs ${t.plain[k]} (${fewer(t[k], t.plain[k])} fewer)`,
      median: t[k],
      unit: 'bytes',
    });
  info.push({
    id: 'reads-claude-ms',
    name: 'case reads, Claude Code: a Read, its hook processes, ms',
    ...stats(t.readMs),
  });
  info.push({
    id: 'reads-claude-write-ms',
    name: 'case reads, Claude Code: a Write, its hook processes, ms',
    ...stats(t.writeMs),
  });
};
