// How an edge names the step its reader can take next. A person at a shell reads a command in backticks, which the
// command edge spells for their shell (io/self.ts); a model over MCP reads the tool to call and its arguments.
// Every renderer takes one, so a sentence is written once for all edges.

export interface Dialect {
  /** undo these changes (rollback ids, changeset ids or commits) */
  rollback(targets: string[]): string;
  /** look at a change */
  review(id: string): string;
}

/** `fettle …` commands in backticks, `invoke` being how the reader's shell runs fettle here. */
export const shellDialect = (invoke: string): Dialect => ({
  rollback: (targets) => `\`${invoke} rollback ${targets.join(' ')}\``,
  review: (id) => `\`${invoke} review ${id}\``,
});

/** fettle's MCP tools. */
export const toolDialect: Dialect = {
  rollback: (targets) => `fettle_rollback with targets [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
  review: (id) => `fettle_show with change ${JSON.stringify(id)}`,
};
