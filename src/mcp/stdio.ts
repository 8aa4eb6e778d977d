// MCP's stdio transport: one JSON-RPC message per line on stdin and stdout, nothing else on stdout. The SDK's own
// stdio transport drops a line that is not JSON without a word, and closes the connection on a message over
// 10 MB (a write tool's content can be larger); JSON-RPC 2.0 answers a parse error with -32700 and a message that
// is not a request with -32600, both with a null id when the id cannot be read. So this one reads lines itself.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** A longer line is answered with an error and skipped (a whole file's content travels in one line). */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

type Id = string | number | null;

const idOf = (value: unknown): Id => {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
};

const failure = (id: Id, code: number, message: string): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, error: { code, message } }) as unknown as JSONRPCMessage;

export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  /** inside a line over MAX_LINE_BYTES: dropped up to its end */
  private skipping = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', (chunk: Buffer) => this.receive(chunk));
    this.input.on('end', () => void this.close());
    this.input.on('error', (error: Error) => this.onerror?.(error));
  }

  private receive(chunk: Buffer): void {
    let rest = chunk;
    for (let at = rest.indexOf(0x0a); at !== -1; at = rest.indexOf(0x0a)) {
      const tail = rest.subarray(0, at);
      rest = rest.subarray(at + 1);
      if (this.skipping) {
        this.skipping = false;
        void this.send(
          failure(null, ErrorCode.InvalidRequest, `Invalid Request: a message over ${MAX_LINE_BYTES} bytes`),
        );
      } else {
        const line = Buffer.concat([...this.chunks, tail]);
        this.chunks = [];
        this.size = 0;
        this.line(line.toString('utf8').replace(/\r$/, ''));
      }
    }
    if (this.skipping) return;
    this.chunks.push(rest);
    this.size += rest.length;
    if (this.size > MAX_LINE_BYTES) {
      this.chunks = [];
      this.size = 0;
      this.skipping = true;
    }
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      void this.send(failure(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(data);
    if (!parsed.success) {
      // A response-shaped or notification-shaped mistake has nobody to answer; a request does.
      const id = idOf(data);
      void this.send(failure(id, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message'));
      return;
    }
    this.onmessage?.(parsed.data);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
