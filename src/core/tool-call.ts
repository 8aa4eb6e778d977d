// The file tools fettle understands, as data.
import type { EditOp } from './edits';
import type { NotebookOp } from './notebook';

/** What the agent asked for, per tool. `filePath` is `notebook_path` for NotebookEdit. */
export type ToolCall =
  | { tool: 'Write'; filePath: string; content: string }
  | { tool: 'Edit' | 'MultiEdit'; filePath: string; edits: EditOp[] }
  | { tool: 'NotebookEdit'; filePath: string; op: NotebookOp }
  | { tool: 'Read'; filePath: string; offset: number | undefined; limit: number | undefined };

export type WriteCall = Exclude<ToolCall, { tool: 'Read' }>;

/** Tools whose writes fettle records, in the order they appear in matchers. */
export const WRITE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;
