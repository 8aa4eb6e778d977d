// The file tools fettle understands, as data.
import type { EditOp } from './edits';
import type { NotebookOp } from './notebook';

/** What a write leaves, as an agent adapter computes it from the bytes there now (null: no file). */
export type Predicted = { exact: true; next: Buffer } | { exact: false; why: string };

/** What the agent asked for, per tool. `filePath` is `notebook_path` for NotebookEdit. */
export type ToolCall =
  | { tool: 'Write'; filePath: string; content: string }
  /**
   * Another agent's file tool, which its adapter (src/hook/agents/) reproduces itself: `input` is the tool's own
   * input (it identifies the call), `predict` the bytes it leaves (core/gemini-tools.ts).
   */
  | { tool: 'Rewrite'; filePath: string; input: unknown; predict: (old: Buffer | null) => Predicted }
  | { tool: 'Edit' | 'MultiEdit'; filePath: string; edits: EditOp[] }
  | { tool: 'NotebookEdit'; filePath: string; op: NotebookOp }
  | { tool: 'Read'; filePath: string; offset: number | undefined; limit: number | undefined };

export type WriteCall = Exclude<ToolCall, { tool: 'Read' }>;

/** Tools whose writes fettle records, in the order they appear in matchers. */
export const WRITE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;
