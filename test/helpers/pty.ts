// A real terminal for tests of what a person types: tmux on a socket of the test's own, a command in a window of a
// fixed size, keys sent one by one, the screen read back as text.
import { execFileSync } from 'node:child_process';
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
