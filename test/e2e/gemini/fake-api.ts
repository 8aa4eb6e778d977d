// A scripted stand-in for the Gemini API on 127.0.0.1, for driving the real Gemini CLI offline (its
// GOOGLE_GEMINI_BASE_URL). A request that offers tools is a turn of the conversation: it gets the script's next
// model turn (function calls or text), streamed as server-sent events for :streamGenerateContent; any other
// request (a side question the client asks the model) gets a plain answer. Every request is kept, so a test
// reads exactly what the model was shown for each call (the functionResponse parts).
import { serveJson } from '../local';

export type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

export interface GeminiRequest {
  path: string;
  body: { contents?: { role?: string; parts?: Record<string, unknown>[] }[]; tools?: unknown[] };
}

export type Script = (req: GeminiRequest, turn: number) => Part[];

export const call = (name: string, args: Record<string, unknown>): Part => ({ functionCall: { name, args } });
export const text = (t: string): Part => ({ text: t });

/** What the model was shown for each function call of a request, in order: the tool's name and its output. */
export const responsesIn = (req: GeminiRequest | undefined): { name: string; output: string }[] =>
  (req?.body.contents ?? []).flatMap((c) =>
    (c.parts ?? []).flatMap((p) => {
      const r = p.functionResponse as { name?: string; response?: Record<string, unknown> } | undefined;
      if (!r) return [];
      const out = r.response?.output ?? r.response?.error ?? r.response;
      return [{ name: String(r.name), output: typeof out === 'string' ? out : JSON.stringify(out) }];
    }),
  );

export interface FakeGemini {
  url: string;
  requests: GeminiRequest[];
  /** the function responses of the last turn request */
  responses: () => { name: string; output: string }[];
  close: () => Promise<void>;
}

export const startFakeGemini = async (script: Script): Promise<FakeGemini> => {
  const requests: GeminiRequest[] = [];
  let turn = 0;
  const server = await serveJson((req, json, res) => {
    const body = json as GeminiRequest['body'];
    const path = req.url ?? '/';
    requests.push({ path, body });
    if (path.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    if (!/:(stream)?generatecontent/i.test(path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: `no ${path} here`, status: 'NOT_FOUND' } }));
      return;
    }
    const isTurn = Array.isArray(body.tools) && body.tools.length > 0;
    const parts = isTurn ? script({ path, body }, turn++) : [text('{"next_speaker": "user", "reasoning": "done"}')];
    const chunk = {
      candidates: [
        {
          content: { role: 'model', parts: parts.length > 0 ? parts : [text('done')] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
    };
    if (path.includes('streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chunk));
    }
  });
  const turns = () => requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
  return {
    url: server.url,
    requests,
    responses: () => responsesIn(turns()[turns().length - 1]),
    close: server.close,
  };
};
