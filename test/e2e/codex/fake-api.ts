// A scripted stand-in for the OpenAI Responses API on 127.0.0.1, for driving the real Codex CLI offline. Each
// POST /v1/responses is answered, as a server-sent event stream, with the script's next model turn: tool calls
// (apply_patch as a custom tool call, exec_command as a function call) or a message. Every request is kept, so a
// test reads exactly what the model was shown for each call (its `*_call_output` items).
import { serveJson } from '../local';

export type Item =
  | { type: 'custom_tool_call'; name: string; input: string; call_id: string }
  | { type: 'function_call'; name: string; arguments: string; call_id: string }
  | { type: 'message'; role: 'assistant'; content: { type: 'output_text'; text: string }[] };

export interface ResponsesRequest {
  path: string;
  body: { model?: string; input?: Record<string, unknown>[]; tools?: { name?: string; type?: string }[] };
}

/** The model's next turn, given the request and how many turns it answered before. */
export type Script = (req: ResponsesRequest, turn: number) => Item[];

export const patch = (callId: string, input: string): Item => ({
  type: 'custom_tool_call',
  name: 'apply_patch',
  input,
  call_id: callId,
});
export const shell = (callId: string, cmd: string): Item => ({
  type: 'function_call',
  name: 'exec_command',
  arguments: JSON.stringify({ cmd }),
  call_id: callId,
});
export const say = (text: string): Item => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text }],
});

/** What the model was shown for each tool call, by call id: the output items of the latest request. */
export const outputsIn = (req: ResponsesRequest | undefined): Map<string, string> =>
  new Map(
    (req?.body.input ?? [])
      .filter((i) => typeof i.type === 'string' && i.type.endsWith('_call_output'))
      .map((i) => [String(i.call_id), typeof i.output === 'string' ? i.output : JSON.stringify(i.output)]),
  );

/** Every message text the model was given (developer and user messages: hook context lands there). */
export const messagesIn = (req: ResponsesRequest | undefined): string =>
  (req?.body.input ?? [])
    .filter((i) => i.type === 'message')
    .flatMap((i) => (Array.isArray(i.content) ? i.content : []))
    .map((c) => String((c as { text?: unknown }).text ?? ''))
    .join('\n');

export interface FakeResponses {
  url: string;
  requests: ResponsesRequest[];
  /** the output the model saw for a call, in the last request */
  outputFor: (callId: string) => string | undefined;
  close: () => Promise<void>;
}

let ids = 0;

export const startFakeResponses = async (script: Script): Promise<FakeResponses> => {
  const requests: ResponsesRequest[] = [];
  let turn = 0;
  const server = await serveJson((req, body, res) => {
    const request = { path: req.url ?? '/', body: body as ResponsesRequest['body'] };
    requests.push(request);
    if (req.method !== 'POST' || !request.path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no ${request.path} here` } }));
      return;
    }
    const items = script(request, turn++);
    const final = items.length > 0 ? items : [say('done')];
    const id = `resp_e2e_${++ids}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('response.created', { response: { id } });
    final.forEach((item, index) => {
      const full = { id: `item_e2e_${ids}_${index}`, status: 'completed', ...item };
      send('response.output_item.added', { output_index: index, item: full });
      send('response.output_item.done', { output_index: index, item: full });
    });
    const usage = { input_tokens: 10, output_tokens: 10, total_tokens: 20 };
    send('response.completed', { response: { id, usage } });
    res.end();
  });
  return {
    url: server.url,
    requests,
    outputFor: (callId) => outputsIn(requests[requests.length - 1]).get(callId),
    close: server.close,
  };
};
