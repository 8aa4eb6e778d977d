// A scripted stand-in for an OpenAI-compatible chat completions API on 127.0.0.1, for driving the real opencode
// client offline (opencode's `@ai-sdk/openai-compatible` provider, bundled in its binary). Each request to
// /v1/chat/completions is answered with the script's next turn, streamed as SSE when asked, and every request is
// kept, so a test can assert on exactly what the model was shown: each tool message's text.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content?: unknown; tool_call_id?: string }[];
  tools?: { function?: { name?: string } }[];
}

export type Turn = { text: string } | { tool: string; args: Record<string, unknown> };
/** A turn, or how to make it from the conversation so far (to use what a tool answered). */
export type Step = Turn | ((req: ChatRequest) => Turn);

/** A message's text, whether its content is a string or a list of parts. */
export const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('')
      : '';

/** The tool messages of a request, in order: what each tool call answered, as the model reads it. */
export const toolResults = (req: ChatRequest): string[] =>
  (req.messages ?? []).filter((m) => m.role === 'tool').map((m) => textOf(m.content));

/** opencode also asks its small model for a session title: that is not the agent's turn. */
const isTitle = (req: ChatRequest): boolean =>
  (req.messages ?? []).some((m) => textOf(m.content).includes('Generate a title for this conversation'));

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const answer = (res: ServerResponse, req: ChatRequest, turn: Turn, n: number) => {
  const call =
    'tool' in turn
      ? { id: `call_${n}`, type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.args) } }
      : null;
  const finish = call ? 'tool_calls' : 'stop';
  if (!req.stream) {
    const message = {
      role: 'assistant',
      content: call ? null : (turn as { text: string }).text,
      ...(call ? { tool_calls: [call] } : {}),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 0,
        model: 'fake-model',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(
    chunk(
      call
        ? { role: 'assistant', tool_calls: [{ index: 0, ...call }] }
        : { role: 'assistant', content: (turn as { text: string }).text },
    ),
  );
  res.write(
    `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
};

export interface FakeApi {
  url: string;
  /** the agent's requests (title requests left out), in order */
  requests: ChatRequest[];
  close: () => Promise<void>;
}

/** Serves `script`: the agent's n-th request gets turn n (past the end: "done"), or a function answers every one. */
export const startApi = async (script: Step[] | ((req: ChatRequest) => Turn)): Promise<FakeApi> => {
  const requests: ChatRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as ChatRequest;
      if (isTitle(parsed)) return answer(res, parsed, { text: 'A title' }, 0);
      requests.push(parsed);
      const n = requests.length;
      const step = typeof script === 'function' ? script : (script[n - 1] ?? { text: 'done' });
      answer(res, parsed, typeof step === 'function' ? step(parsed) : step, n);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
