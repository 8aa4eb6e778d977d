// What a large (staged) write becomes, by the client's permission mode. PreToolUse runs before Claude Code's own
// permission decision, so staging must never turn a write the client would refuse, or ask a person about, into
// one the model can apply itself with `fettle confirm` (any Bash rule admitting that command would otherwise be a
// way around the prompt). The table is documented in docs/HOOK.md ("Permission modes").

/** model: staged, the model is told to confirm or discard; person: staged, Claude Code asks the person
 * (`ask`); refuse: nothing staged, the write is denied with a plain reason. */
export type StagedRoute = 'model' | 'person' | 'refuse';

export interface RouteInput {
  /** `permission_mode` of the hook input; undefined when the agent sends none */
  mode: string | undefined;
  /** FETTLE_REVIEW */
  review: 'model' | 'human';
  /** the file is inside the project and not a path Claude Code protects (it prompts for those in acceptEdits) */
  inProject: boolean;
}

export const routeStaged = ({ mode, review, inProject }: RouteInput): StagedRoute => {
  // Nothing not pre-allowed is written, and nobody is there to answer a prompt.
  if (mode === 'dontAsk') return 'refuse';
  if (review === 'human') return 'person';
  switch (mode) {
    // Agents that send no mode keep fettle's own review.
    case undefined:
      return 'model';
    // Claude Code would write it without asking.
    case 'bypassPermissions':
      return 'model';
    case 'acceptEdits':
      return inProject ? 'model' : 'person';
    // default asks the person; auto has a classifier judge the write, which it could not do for a
    // `fettle confirm <id>`; a mode this fettle does not know gets the careful answer.
    default:
      return 'person';
  }
};
