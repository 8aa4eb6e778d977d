// What every real-client session shares, whichever the client: a child process run to its end, a server on
// 127.0.0.1 that reads each request's JSON body, and the addresses in an strace log of connect() calls.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `file args`, run to its end (killed after `timeoutMs`), its output collected. */
export const runChild = (
  file: string,
  args: string[],
  o: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<ChildRun> => {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
};

/** The JSON objects among the lines of a client's streamed output. */
export const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

export interface LocalServer {
  url: string;
  close: () => Promise<void>;
}

/** A server on 127.0.0.1, on a free port, handing `answer` each request with its body as JSON ({} when it is not). */
export const serveJson = async (
  answer: (req: IncomingMessage, body: Record<string, unknown>, res: ServerResponse) => void,
): Promise<LocalServer> => {
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = {};
      }
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** Every inet/inet6 connect() in an `strace -f -e trace=connect` log: the address each one went to. */
export const inetConnects = (log: string): string[] =>
  log
    .split('\n')
    .filter((l) => /connect\(\d+, \{sa_family=AF_INET6?,/.test(l))
    .map((l) => /inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"/.exec(l)?.slice(1).find(Boolean) ?? l);

/** An strace connect() log in which the client reached the fake API on 127.0.0.1, and nothing anywhere else. */
export const assertStayedLocal = (log: string): void => {
  assert.ok(log.includes(`sin_addr=inet_addr("127.0.0.1")`), 'the trace saw the client reach the fake API');
  assert.deepEqual(
    inetConnects(log).filter((a) => a !== '127.0.0.1'),
    [],
    'every inet connect is to 127.0.0.1',
  );
};
