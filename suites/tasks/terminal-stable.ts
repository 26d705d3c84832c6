import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { readTaskState } from '../../src/engine/discover.ts';

const REPOLLS = 3;

/** Completion is final: a task read in a terminal state reads the same on every later poll. */
export const terminalStable: Check = {
  id: 'tasks.terminal-stable',
  group: 'tasks',
  clauses: ['TASK-POLL'],
  level: 'must',
  why: { must: "the seed says a task is polled until completion: completion is final" },
  title: 'A task never leaves a terminal state',
  async run(ctx) {
    const outcome = await ctx.fixtures.vmTaskOutcome();
    if (!outcome.state.terminal) return skip('the task did not reach a terminal state (see tasks.reaches-terminal)', 'a task that completes within --task-timeout');
    const id = (await ctx.fixtures.vmTask()).id;
    const polls = [];
    for (let i = 0; i < REPOLLS; i++) {
      const ex = await ctx.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(id)}` });
      polls.push(ex);
      const state = readTaskState(ex.response?.json, ctx.declarations.task);
      if (state.value !== outcome.state.value) {
        return fail(`the task was ${outcome.state.field}=${outcome.state.value} and then read ${state.field}=${state.value ?? '(none)'} (poll ${i + 1} after completion)`, polls.slice(-2));
      }
    }
    return pass(`${REPOLLS} further polls all read ${outcome.state.field}=${outcome.state.value}`);
  },
};
