import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, isSuccess } from '../support.ts';

// States that plainly mean "not finished yet": a task stuck in one of them past the timeout has not completed.
export const NOT_FINISHED =
  /^(queued|pending|running|in[_ -]?progress|processing|started|starting|creating|provisioning|waiting|new|accepted|scheduled|submitted)$/i;

/** Polling GET /v1/tasks/{id} reaches completion. */
export const reachesTerminal: Check = {
  id: 'tasks.reaches-terminal',
  group: 'tasks',
  clauses: ['TASK-POLL', 'TASK-ASYNC'],
  level: 'must',
  why: { must: 'the seed says a task is polled until completion' },
  title: "A created VM's task reaches a terminal state when polled",
  async run(ctx) {
    const outcome = await ctx.objects.vmTaskOutcome();
    const last = outcome.polls[outcome.polls.length - 1]!;
    if (!isSuccess(last)) return fail(`polling the task failed: ${describeExchange(last)}`, outcome.polls.slice(-3));
    const { state } = outcome;
    ctx.observe('taskStates', { field: state.field, seen: outcome.history, declared: state.declared });
    if (state.terminal) {
      return pass(
        `the task reached ${state.field}=${state.value} after ${outcome.polls.length} polls (states seen: ${outcome.history.join(' → ')})`,
        [last]
      );
    }
    const limit = `${ctx.config.taskTimeoutSeconds} s (--task-timeout)`;
    if (state.field === undefined) {
      return skip(
        `the task's state could not be read (fields: ${Object.keys((last.response?.json as object) ?? {}).join(', ')}); declare x-state-field and x-terminal-states in an overlay`,
        'declare x-state-field and x-terminal-states on components.schemas.Task in --overlay'
      );
    }
    if (state.declared || NOT_FINISHED.test(state.value ?? '')) {
      return fail(
        `the task was still ${state.field}=${state.value} after ${limit}; states seen: ${outcome.history.join(' → ')}`,
        outcome.polls.slice(-2)
      );
    }
    return skip(
      `the task settled on ${state.field}=${state.value}, which the suite cannot tell terminal or not; declare x-terminal-states in an overlay`,
      'declare x-terminal-states on components.schemas.Task in --overlay'
    );
  },
};
