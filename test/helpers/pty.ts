// A real terminal for tests of what a person types: tmux on a socket of the test's own, a command in a window of a
// fixed size, keys sent one by one, the screen read back as text.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Pty {
  keys: (...keys: string[]) => void;
  screen: () => string;
  /** waits until the screen matches, or fails saying what it shows */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  close: () => void;
}

export const startPty = (command: string[], o: { cwd: string; env: Record<string, string> }): Pty => {
  const socket = `fettle-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { env: o.env }).toString();
  const quoted = command.map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
  // The window stays after the command ends, so its last screen can be read.
  tmux('new-session', '-d', '-s', 'test', '-x', '120', '-y', '40', '-c', o.cwd, `${quoted}; echo EXIT=$?; sleep 60`);
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'test');
  return {
    keys: (...keys) => {
      for (const k of keys) tmux('send-keys', '-t', 'test', k);
    },
    screen,
    waitFor: async (pattern, timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        if (pattern.test(text)) return text;
        if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}; it shows:\n${text}`);
        await sleep(100);
      }
    },
    close: () => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
};

/**
 * One command run as a person runs it: in a real terminal (stdin and stdout a tty) that tmux's server, detached
 * from the test runner, holds; so no process of whatever runs the tests is above it. stdout is the screen's text
 * (lines joined where they wrapped, trailing spaces trimmed); stderr goes to a file; the run is awaited through a
 * tmux channel, not a clock.
 */
export const runInTerminal = (
  command: string[],
  o: { cwd: string; env: Record<string, string> },
): { code: number; stdout: string; stderr: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'fettle-tty-'));
  const socket = `fettle-tty-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { env: o.env, timeout: 120_000 }).toString();
  const q = (w: string) => `'${w.replace(/'/g, "'\\''")}'`;
  const [err, code] = [join(dir, 'stderr'), join(dir, 'code')];
  const line = `${command.map(q).join(' ')} 2>${q(err)}; echo $? >${q(code)}; tmux -L ${socket} wait-for -S done; tmux -L ${socket} wait-for end`;
  try {
    tmux('new-session', '-d', '-s', 'run', '-x', '200', '-y', '50', '-c', o.cwd, line);
    tmux('wait-for', 'done');
    const screen = tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', 'run');
    const lines = screen.split('\n').map((l) => l.trimEnd());
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return {
      code: Number(readFileSync(code, 'utf8').trim()),
      stdout: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
      stderr: readFileSync(err, 'utf8'),
    };
  } finally {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
};
