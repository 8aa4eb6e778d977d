// An MCP client by hand-written JSON-RPC frames: the built CLI's `fettle mcp` as a child process, one JSON object
// per line each way, as an agent's MCP client speaks to it.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI } from './cli';

export interface Frame {
  jsonrpc?: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  [key: string]: unknown;
}

export interface ToolAnswer {
  text: string;
  isError: boolean;
}

export interface McpClient {
  child: ChildProcessWithoutNullStreams;
  /** every line the server wrote to stdout, as written */
  lines: string[];
  stderr: () => string;
  /** writes one raw line (no newline needed) */
  raw: (line: string) => void;
  /** the next frame the server answers with this id (null: an error it could not tie to a request) */
  answer: (id: string | number | null) => Promise<Frame>;
  request: (method: string, params?: unknown) => Promise<Frame>;
  initialize: (client?: string) => Promise<Frame>;
  call: (name: string, args?: unknown) => Promise<ToolAnswer>;
  close: () => Promise<number | null>;
}

export const startMcp = (o: { cwd: string; env: Record<string, string>; args?: string[] }): McpClient => {
  const child = spawn(process.execPath, [CLI, ...(o.args ?? []), 'mcp'], { cwd: o.cwd, env: o.env });
  const lines: string[] = [];
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const waiting = new Map<string, (frame: Frame) => void>();
  const arrived = new Map<string, Frame[]>();
  const key = (id: unknown) => JSON.stringify(id ?? null);
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    const frame = JSON.parse(line) as Frame;
    const k = key(frame.id);
    const wait = waiting.get(k);
    if (wait) {
      waiting.delete(k);
      wait(frame);
    } else arrived.set(k, [...(arrived.get(k) ?? []), frame]);
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let next = 1;
  const client: McpClient = {
    child,
    lines,
    stderr: () => err,
    raw: (line) => child.stdin.write(`${line}\n`),
    answer: (id) => {
      const k = key(id);
      const early = arrived.get(k)?.shift();
      if (early) return Promise.resolve(early);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${k}; stderr: ${err}`)), 20_000);
        waiting.set(k, (frame) => {
          clearTimeout(timer);
          resolve(frame);
        });
      });
    },
    request: (method, params) => {
      const id = next++;
      client.raw(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
      return client.answer(id);
    },
    initialize: async (name = 'test-client') => {
      const frame = await client.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name, version: '1.0.0' },
      });
      client.raw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      return frame;
    },
    call: async (name, args) => {
      const frame = await client.request('tools/call', { name, ...(args === undefined ? {} : { arguments: args }) });
      if (!frame.result) throw new Error(`tools/call ${name} answered ${JSON.stringify(frame)}`);
      const content = frame.result.content as { type: string; text: string }[];
      return { text: content.map((c) => c.text).join('\n'), isError: frame.result.isError === true };
    },
    close: () => {
      child.stdin.end();
      return exited;
    },
  };
  return client;
};
