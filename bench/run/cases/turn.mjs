// Case 9: the UserPromptSubmit hook (a new turn of the session), which runs before every prompt reaches the model.
import { baseEnv } from '../env.mjs';
import { fail, hookOnce } from '../hook-calls.mjs';
import { RUNS } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase } from '../results.mjs';
import { alternate, bareNode, stats } from '../timing.mjs';

export const measureTurn = (mid) => {
  log('case 9: UserPromptSubmit hook vs bare node');
  const prompt = JSON.stringify({
    session_id: 'bench-turns',
    transcript_path: '/dev/null',
    cwd: mid.repo,
    permission_mode: 'default',
    hook_event_name: 'UserPromptSubmit',
    prompt: 'Refactor the parser and add tests.',
  });
  const [hook, node] = alternate(RUNS, [
    () => {
      const r = hookOnce(mid.repo, prompt, baseEnv);
      // Claude Code adds this hook's stdout to the prompt: it must print nothing.
      if (r.code !== 0 || r.stdout !== '') fail('UserPromptSubmit hook', r);
      return r.ms;
    },
    () => bareNode(mid.repo),
  ]);
  const f = stats(hook);
  const b = stats(node);
  addCase({
    id: '9',
    name: 'UserPromptSubmit hook (a new turn) ÷ node -e 0',
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 1.6 },
  });
};
