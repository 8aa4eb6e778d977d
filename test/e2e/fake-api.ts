// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for driving the real Claude Code client
// offline. Each request to /v1/messages is answered with the script's next assistant turn (streamed as SSE when
// the request asks for `stream`, else as one JSON message), and every request is kept, so a test can assert on
// exactly what the model was shown: each tool_result's text and is_error, and what reached it between turns.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

/** The request as the client sent it (the parsed JSON body), with what the script derived from it. */
export interface ApiRequest {
  path: string;
  body: {
    model?: string;
    stream?: boolean;
    system?: unknown;
    messages?: { role: string; content: string | Record<string, unknown>[] }[];
    tools?: { name: string }[];
  };
}

/** A tool result the model saw: its text (all text parts joined) and whether the client marked it an error. */
export interface SeenResult {
  toolUseId: string;
  text: string;
  isError: boolean;
}

/**
 * What the model answers to the conversation so far, given the request and how many assistant turns it already
 * holds. Return the blocks of the next turn; a turn without tool_use ends the run (stop_reason end_turn).
 */
export type Script = (req: ApiRequest, turn: number) => Block[];

/** Turns in order; past the last one the model says "done". */
export const turns =
  (...script: Block[][]): Script =>
  (_req, turn) =>
    script[turn] ?? [{ type: 'text', text: 'done' }];

export const text = (t: string): Block => ({ type: 'text', text: t });
export const tool = (name: string, input: Record<string, unknown>): Block => ({ type: 'tool_use', name, input });

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : '')).join('');
};

/** Every tool_result in a request's conversation, in order. */
export const resultsIn = (req: ApiRequest): SeenResult[] =>
  (req.body.messages ?? []).flatMap((m) =>
    typeof m.content === 'string' || m.role !== 'user'
      ? []
      : m.content
          .filter((b) => b.type === 'tool_result')
          .map((b) => ({ toolUseId: String(b.tool_use_id), text: textOf(b.content), isError: b.is_error === true })),
  );

/** All text the client put in the conversation outside tool results (prompts, reminders, hook messages). */
export const contextTextIn = (req: ApiRequest): string =>
  (req.body.messages ?? [])
    .flatMap((m) =>
      typeof m.content === 'string'
        ? [m.content]
        : m.content.filter((b) => b.type === 'text').map((b) => String((b as { text: unknown }).text)),
    )
    .join('\n');

export interface FakeApi {
  url: string;
  /** every request, in arrival order */
  requests: ApiRequest[];
  /** the requests that asked for a turn (not count_tokens and the like) */
  turnRequests: () => ApiRequest[];
  /** the tool results of the longest conversation the model saw */
  results: () => SeenResult[];
  /** the result the model saw for the tool_use with this id */
  resultFor: (toolUseId: string) => SeenResult | undefined;
  close: () => Promise<void>;
}

const isTurnRequest = (r: ApiRequest): boolean => r.path.startsWith('/v1/messages') && !r.path.includes('count');

let ids = 0;

const sse = (res: ServerResponse, event: string, data: unknown) =>
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/** The id of the `index`th block of assistant turn `turn` when the script gives none: known before the run. */
export const toolUseId = (turn: number, index: number): string => `toolu_e2e_${turn}_${index}`;

const answer = (req: ApiRequest, res: ServerResponse, turn: number, blocks: Block[]) => {
  const content = blocks.map((b, index) =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : { type: 'tool_use', id: b.id ?? toolUseId(turn, index), name: b.name, input: b.input },
  );
  const stop = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: `msg_e2e_${++ids}`,
    type: 'message',
    role: 'assistant',
    model: req.body.model ?? 'claude-sonnet-4-5',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
  if (!req.body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': message.id });
    res.end(JSON.stringify(message));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': message.id });
  sse(res, 'message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      const start = { ...block, input: {} };
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: start });
      const json = JSON.stringify(block.input);
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: json },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });

/** Starts the fake API on 127.0.0.1 (a free port). */
export const startFakeApi = async (script: Script): Promise<FakeApi> => {
  const requests: ApiRequest[] = [];
  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((raw) => {
        const path = req.url ?? '/';
        let body: ApiRequest['body'] = {};
        try {
          body = raw ? (JSON.parse(raw) as ApiRequest['body']) : {};
        } catch {
          body = {};
        }
        const request: ApiRequest = { path, body };
        requests.push(request);
        if (req.method !== 'POST' || !path.startsWith('/v1/messages')) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${path} here` } }));
          return;
        }
        if (path.includes('count_tokens')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ input_tokens: 10 }));
          return;
        }
        const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
        answer(request, res, turn, script(request, turn));
      })
      .catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const turnRequests = () => requests.filter(isTurnRequest);
  const results = () =>
    turnRequests()
      .map(resultsIn)
      .reduce((a, b) => (b.length >= a.length ? b : a), [] as SeenResult[]);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turnRequests,
    results,
    resultFor: (id) => results().find((r) => r.toolUseId === id),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
