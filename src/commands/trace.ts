// `fettle trace export [<revision>]`: the agent attribution of a commit (HEAD by default) or of each commit of a
// range, as Agent Trace records, one JSON document per line.
import { openStore } from '../protocol/select/open';
import { exportTrace } from '../protocol/trace';
import { contextFor, type Edge } from './edge';

export const traceExport = async (edge: Edge, dir: string | undefined, revision: string | undefined) => {
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  for (const record of await exportTrace(ctx, store, revision ?? 'HEAD')) edge.io.out(JSON.stringify(record));
};
