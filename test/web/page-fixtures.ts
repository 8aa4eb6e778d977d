// Files for the review page's tests: a file whose change has three hunks (its expected bytes built here, apart
// from fettle), a file of hostile text, and a realistic TypeScript change for the README's picture.
import { lines } from '../helpers/repo';

/** Sixty numbered lines; the change rewrites lines 5, 30 and 55: three hunks, far enough apart. */
export const BASE = lines(60);
const CHANGED: Record<number, string> = {
  5: 'line five, rewritten',
  30: 'line thirty, rewritten',
  55: 'line fifty-five, rewritten',
};

/** The base with the given hunks (1: line 5, 2: line 30, 3: line 55) applied. */
export const withHunks = (...hunks: number[]): string => {
  const at = [5, 30, 55];
  return BASE.split('\n')
    .map((line, i) => {
      const n = i + 1;
      const h = at.indexOf(n) + 1;
      return h > 0 && hunks.includes(h) ? (CHANGED[n] as string) : line;
    })
    .join('\n');
};

/** Lines that would be markup or script if the page ever parsed a file's text. */
export const HOSTILE_LINES = [
  "const a = '<img src=x onerror=alert(1)>';",
  '// </script><script>alert(2)</script>',
  'const b = `<b>bold</b> &amp; &lt;tag&gt; ${"<svg onload=alert(3)>"}`;',
];
export const HOSTILE_BASE = 'export const quiet = 1;\n';
export const HOSTILE_NEW = `export const quiet = 1;\n${HOSTILE_LINES.join('\n')}\n`;
export const HOSTILE_PROMPT = 'Make it <img src=y onerror=alert(4)> </textarea><script>alert(5)</script>';

/** A TypeScript module and a change to it in four hunks, for the picture in the README. */
export const SHOT_BASE = `// A token bucket: at most \`rate\` calls a second, in bursts of up to \`burst\`.
import { setTimeout as sleep } from 'node:timers/promises';

export interface Limits {
  rate: number;
  burst: number;
}

export class Bucket {
  private tokens: number;
  private last = Date.now();

  constructor(private readonly limits: Limits) {
    this.tokens = limits.burst;
  }

  private refill(): void {
    const now = Date.now();
    const earned = ((now - this.last) / 1000) * this.limits.rate;
    this.tokens = Math.min(this.limits.burst, this.tokens + earned);
    this.last = now;
  }

  /** Takes a token, or says how long to wait for one. */
  take(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return ((1 - this.tokens) / this.limits.rate) * 1000;
  }

  async wait(): Promise<void> {
    for (;;) {
      const ms = this.take();
      if (ms === 0) return;
      await sleep(ms);
    }
  }
}

export const perSecond = (rate: number): Bucket => new Bucket({ rate, burst: rate });
`;

export const SHOT_NEW = SHOT_BASE.replace(
  "import { setTimeout as sleep } from 'node:timers/promises';",
  "import { setTimeout as sleep } from 'node:timers/promises';\nimport { performance } from 'node:perf_hooks';",
)
  .replace('  private last = Date.now();', '  private last = performance.now();')
  .replace(
    `    const now = Date.now();
    const earned = ((now - this.last) / 1000) * this.limits.rate;`,
    `    const now = performance.now();
    // a clock that went back (a suspended laptop) earns nothing
    const earned = Math.max(0, ((now - this.last) / 1000) * this.limits.rate);`,
  )
  .replace(
    `  async wait(): Promise<void> {
    for (;;) {
      const ms = this.take();
      if (ms === 0) return;
      await sleep(ms);
    }
  }`,
    `  async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const ms = this.take();
      if (ms === 0) return;
      await sleep(ms, undefined, { signal });
    }
  }`,
  );
