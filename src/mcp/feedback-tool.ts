// A person's feedback on the changes this server's session made (protocol/record/feedback-queue.ts), for the
// model: with the result of its next tool call, or asked for with fettle_feedback. Each is read once.
import { loadConfig } from '../config';
import { takeFeedback } from '../protocol/record/feedback-queue';
import { type Args, type McpEdge, text, type ToolResult } from './edge';

// What is queued says itself who it is from: a person's review, or fettle's own note of a confirm (confirm-feedback.ts).
const HEADER = '[fettle: news of your changes]';

const take = async (edge: McpEdge) => {
  try {
    return await takeFeedback(loadConfig(edge.env).dataDir, edge.session);
  } catch {
    return null; // a configuration error is the tool's own to report
  }
};

/** `result` with the session's queued feedback as a further text, when there is some. */
export const withFeedback = async (edge: McpEdge, result: ToolResult): Promise<ToolResult> => {
  const taken = await take(edge);
  if (!taken) return result;
  await taken.release();
  return { ...result, content: [...result.content, { type: 'text', text: `${HEADER}\n${taken.text}` }] };
};

export const feedbackTool = async (edge: McpEdge, _args: Args): Promise<ToolResult> => {
  const taken = await take(edge);
  if (!taken) return text('No feedback from a person is waiting.');
  await taken.release();
  return text(`${HEADER}\n${taken.text}`);
};
