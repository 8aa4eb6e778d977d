// What a person can do about the conversation where fettle cannot fork it through the agent's own mechanism: per
// agent, what that agent's pinned version offers (docs/AGENTS.md, "Rewind"). Placeholders: <session>, <turn>.

const ADVICE: Record<string, string> = {
  claude:
    'In Claude Code, `claude --resume <session>` and then `/rewind` (choose turn <turn>\'s prompt and "Restore conversation" only: fettle rewound the files) goes back there.',
  codex:
    "Codex offers no command that forks at a turn: `codex fork <session>` copies the whole conversation into a new session; there, Codex's backtrack (Esc twice) steps back to turn <turn>'s prompt to edit it.",
  gemini:
    'In Gemini CLI, `gemini --resume <session>` and then `/rewind`, choosing turn <turn>\'s message and "Rewind conversation" (not the code: fettle rewound the files).',
  opencode:
    "In opencode, `opencode --session <session>`, then `/fork` and turn <turn>'s message: a new session keeps everything before it, with that prompt ready to send again (`opencode run --session <session> --fork` copies the whole session instead).",
  cursor: "Cursor's chat restores a checkpoint from its own window: pick the message of turn <turn> there.",
};

const GENERIC = 'Ask the agent to continue from turn <turn>, or start a new conversation: the files are as they were.';

/** The advice for `agent` (undefined: fettle does not know which agent made the session). */
export const rewindAdvice = (agent: string | undefined, session: string, turn: number): string =>
  (ADVICE[agent ?? ''] ?? GENERIC).replaceAll('<session>', session).replaceAll('<turn>', String(turn));
