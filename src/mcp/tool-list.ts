// The tools `fettle mcp` offers, as the model sees them: a name, what the tool does and when to use it, and the
// JSON Schema of its arguments. Descriptions are written for a model choosing a tool: what happens to the disk,
// what comes back, and what to do next.
import type { Schema } from './arguments';

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
}

const directory: Schema = {
  type: 'string',
  minLength: 1,
  description:
    "A directory inside the repository to work in (absolute, or relative to the server's directory). Default: the directory the server was started in.",
};
const path = (what: string): Schema => ({
  type: 'string',
  minLength: 1,
  description: `${what}: absolute, or relative to the directory the server was started in.`,
});
const ids: Schema = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  description: 'Change ids or changeset ids (8 characters, as fettle printed them).',
};
const session: Schema = {
  type: 'string',
  minLength: 1,
  description: 'Every undecided change of this agent session (fettle_status names the current one).',
};
const all: Schema = { type: 'boolean', description: 'Every undecided change in the repository.' };

const object = (properties: Record<string, Schema>, required: string[] = []): ToolSpec['inputSchema'] => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
});

const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const writes = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

const LARGE =
  'A large change (by default: more than 10 changed lines that are over 40% of the existing file, or 80 changed lines or more; `fettle info` prints the rule in force)';

export const TOOLS: ToolSpec[] = [
  {
    name: 'fettle_write',
    title: 'Write a file (recorded, large rewrites held for review)',
    description: `Write a whole text file through fettle, the git-backed safety net. A new file or a small change is written at once, after the file's previous bytes are committed to git (refs/fettle/<id>); the result names the change id, which fettle_rollback undoes. ${LARGE} is NOT written: it is staged, and the result shows its diff and id. Then call fettle_confirm to apply it or fettle_discard to drop it; do not retry the write. The content is written exactly as given, as UTF-8.`,
    inputSchema: object(
      {
        path: path('The file to write'),
        content: { type: 'string', description: "The file's whole new content." },
      },
      ['path', 'content'],
    ),
    annotations: { ...writes, idempotentHint: true },
  },
  {
    name: 'fettle_write_files',
    title: 'Write several files as one changeset',
    description: `Write several text files as one changeset, all in one repository: if any of them is a large change, none is written and all are staged together under one changeset id, to be confirmed or discarded as one (fettle_confirm / fettle_discard with that id). Otherwise all are written and recorded together, and fettle_rollback with the changeset id undoes them all. ${LARGE.replace('A large change', 'What counts as large')} is decided per file.`,
    inputSchema: object(
      {
        files: {
          type: 'array',
          minItems: 1,
          items: object(
            {
              path: path('The file to write'),
              content: { type: 'string', description: "The file's whole new content." },
            },
            ['path', 'content'],
          ),
          description: 'The files, each written whole, exactly as given (UTF-8). Each path once.',
        },
      },
      ['files'],
    ),
    annotations: writes,
  },
  {
    name: 'fettle_confirm',
    title: 'Apply staged changes',
    description:
      'Apply staged changes, all or nothing: give ids (change or changeset ids), or a session, or all. Each file is written only over the bytes fettle staged it on, or merged cleanly with edits made since; if one file cannot be applied, nothing is written and the result says which and why. Refused when the user set FETTLE_REVIEW=human, or for a change a person was asked to approve: then only the user applies it, from their own terminal.',
    inputSchema: object({ ids, session, all, directory }),
    annotations: writes,
  },
  {
    name: 'fettle_discard',
    title: 'Drop staged changes',
    description:
      'Drop staged changes, all or nothing: give ids (change or changeset ids), or a session, or all. No file is touched; the proposals stay in git history until retention removes them.',
    inputSchema: object({ ids, session, all, directory }),
    annotations: { ...writes, idempotentHint: true },
  },
  {
    name: 'fettle_rollback',
    title: 'Undo recorded changes',
    description:
      "Undo changes fettle recorded, restoring each file's previous bytes exactly (all or nothing). Give targets (change ids, changeset ids, fettle commits, or files: a file means its latest change still in effect) or a session. A file edited since the change is merged three ways and restored only if that is clean; otherwise nothing is changed and the result says why. A rollback is itself a change: its id undoes it. With dry_run, only say what would change.",
    inputSchema: object({
      targets: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: 'Change ids, changeset ids, fettle commits, or file paths.',
      },
      session: { ...session, description: 'Every change of this agent session still in effect, newest first.' },
      dry_run: { type: 'boolean', description: 'List what would change, and change nothing.' },
      directory,
    }),
    annotations: writes,
  },
  {
    name: 'fettle_status',
    title: 'Pending staged changes and recent writes',
    description:
      "What waits for a decision (staged changes, with their ids, files, sizes and expiry) and the latest recorded writes, as JSON. Also names this server's session.",
    inputSchema: object({ directory }),
    annotations: reads,
  },
  {
    name: 'fettle_log',
    title: 'History of recorded changes',
    description: 'Every change fettle keeps, newest first, as JSON: optionally of one file or one session.',
    inputSchema: object({
      path: path('Only changes to this file'),
      session: { ...session, description: 'Only changes of this agent session.' },
      limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'At most this many changes (default 50).' },
      directory,
    }),
    annotations: reads,
  },
  {
    name: 'fettle_show',
    title: 'One change and its diff',
    description:
      'One change (or all changes of a changeset): what it is, its state, and the diff of what it did or proposes. Long diffs are cut; the result says how to see all of it.',
    inputSchema: object(
      {
        change: { type: 'string', minLength: 1, description: 'A change id, changeset id or fettle commit.' },
        directory,
      },
      ['change'],
    ),
    annotations: reads,
  },
  {
    name: 'fettle_read',
    title: 'Read a text file, in pages; a re-read costs only what changed',
    description:
      'Read a text file with line numbers, a page at a time, however large it is: lines offset to offset+limit-1, cut to about 40,000 characters. The result says which lines were shown and the offset to read on from. Reading a file again in this session: if it is unchanged since you read it (or wrote it through fettle_write), the result is one line saying so; if it changed, a unified diff against what you read, unless the diff would not help (then the whole page, with a line saying why). full: true sends the page whatever you read before.',
    inputSchema: object(
      {
        path: path('The file to read'),
        offset: { type: 'integer', minimum: 1, description: 'The first line to show (1-based; default 1).' },
        limit: { type: 'integer', minimum: 1, description: 'How many lines to show at most (default 2000).' },
        full: {
          type: 'boolean',
          description: 'Send the lines even if you read this file before and it is unchanged (default false).',
        },
      },
      ['path'],
    ),
    annotations: reads,
  },
  {
    name: 'fettle_apply',
    title: 'Stage a contract of exact edits',
    description:
      "Apply a contract file (JSON, or Markdown with fenced blocks: the format `fettle apply --help` describes) exactly as written and stage the result as one changeset: nothing is written to disk. Every edit must apply (its anchor found exactly once, its path in scope), or nothing is staged and the result says which edit fails and why. Then fettle_confirm with the changeset id applies it, fettle_discard drops it. With dry_run, only the diff is shown. The contract's checks are not run by this tool.",
    inputSchema: object(
      {
        contract: path('The contract file'),
        dry_run: { type: 'boolean', description: 'Show the diff it would stage, and stage nothing.' },
        directory,
      },
      ['contract'],
    ),
    annotations: writes,
  },
  {
    name: 'fettle_feedback',
    title: "A person's feedback on your changes",
    description:
      'What a person decided about the changes you made through this server and what they said (comments on hunks or lines, why they dropped something), each once. It also comes with the result of your next fettle tool call; call this to check for it.',
    inputSchema: object({}),
    annotations: reads,
  },
  {
    name: 'fettle_rewind',
    title: "Rewind a session's files and conversation to where a turn began",
    description:
      "Put an agent session back where one of its turns (user prompts, 1 for the first) began: its files, as one rollback of every write and shell change since (the result names the id that undoes it), and its conversation, as the agent's own command that continues a fork from there (Claude Code only; printed, never run, and the original session is left as it is). For another agent, or a transcript fettle does not recognise, only the files are rewound and the result says why and what a person can do. Returns JSON. With dry_run, only say what would change.",
    inputSchema: object(
      {
        turn: {
          type: 'integer',
          minimum: 1,
          description: 'The turn to go back to the start of (1: the first prompt).',
        },
        session: {
          type: 'string',
          minLength: 1,
          description: "The agent session (`fettle_log` shows each change's); default: the one that wrote last.",
        },
        scope: {
          type: 'string',
          minLength: 1,
          description: 'What to rewind: "both" (the default), "files" or "conversation".',
        },
        dry_run: { type: 'boolean', description: 'Say what would change, and change nothing.' },
        directory,
      },
      ['turn'],
    ),
    annotations: writes,
  },
];
