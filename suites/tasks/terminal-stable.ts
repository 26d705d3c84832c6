import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { readTaskState } from '../../src/engine/target/discover.ts';
import { waitsLong } from '../../src/engine/config/config.ts';

/** Reads right after completion: enough that a task answering otherwise every second read shows, though other checks poll it too. */
const REPOLLS = 6;
/**
 * Reads sent at once after those: another check polling the same task in step with this one can take every second
 * read, so each of ours lands on the same parity; with at most one read of each other poller in flight, four at once
 * still land on both (three other pollers' worth of slack).
 */
const AT_ONCE = 4;
/** Target-seconds after its completion at which a terminal task is read once more (a status cache of minutes may lapse by then). */
const LATER_SECONDS = 301;
/**
 * Real seconds after completion at which the quick profile reads the task once more: later than the re-polls, short of
 * the run's own length (a status cache of minutes needs --profile full, or a time scale, to lapse).
 */
export const QUICK_LATER_SECONDS = 3;

/** Completion is final: a task read in a terminal state reads the same on every later poll, right away and five minutes on. */
export const terminalStable: Check = {
  id: 'tasks.terminal-stable',
  group: 'tasks',
  clauses: ['TASK-POLL'],
  level: 'must',
  why: { must: 'the seed says a task is polled until completion: completion is final' },
  title: 'A task never leaves a terminal state',
  async run(ctx) {
    const outcome = await ctx.objects.vmTaskOutcome();
    if (!outcome.state.terminal)
      return skip(
        'the task did not reach a terminal state (see tasks.reaches-terminal)',
        'a task that completes within --task-timeout'
      );
    const id = (await ctx.objects.vmTask()).id;
    const last = outcome.polls[outcome.polls.length - 1]!;
    const terminalAt = Date.parse(last.startedAt) + last.durationMs;
    const polls: Exchange[] = [];
    const read = async (when: string): Promise<string | undefined> => {
      const ex = await ctx.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(id)}` });
      polls.push(ex);
      const state = readTaskState(ex.response?.json, ctx.declarations.task);
      return state.value === outcome.state.value
        ? undefined
        : `the task was ${outcome.state.field}=${outcome.state.value} and then read ${state.field}=${state.value ?? '(none)'} (${when})`;
    };
    for (let i = 0; i < REPOLLS; i++) {
      const wrong = await read(`poll ${i + 1} after completion`);
      if (wrong) return fail(wrong, polls.slice(-2));
    }
    const together = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => read(`read ${i + 1} of ${AT_ONCE} sent at once after completion`))
    );
    const wrongTogether = together.find((w) => w !== undefined);
    if (wrongTogether) return fail(wrongTogether, polls.slice(-AT_ONCE));
    // Once more five minutes after completion (the quick profile waits a few real seconds at most, and says so).
    const sinceCompletion = () => ((Date.now() - terminalAt) * ctx.config.timeScale) / 1000;
    const elapsed = sinceCompletion();
    const allowed = waitsLong(ctx.config) ? LATER_SECONDS : QUICK_LATER_SECONDS * ctx.config.timeScale;
    const readAt = Math.min(LATER_SECONDS, elapsed + allowed);
    // A timer may fire a millisecond early, which a time scale magnifies into seconds: the read waits until it is due.
    for (let tries = 0; tries < 5 && sinceCompletion() < readAt; tries++)
      await ctx.sleepTarget(readAt - sinceCompletion() + ctx.config.timeScale / 1000);
    const later = sinceCompletion();
    const wrong = await read(`${Math.floor(later)} s after it was first read terminal`);
    if (wrong) return fail(wrong, polls.slice(-2));
    const note = later >= LATER_SECONDS ? '' : ` (a read ${LATER_SECONDS} s after completion needs --profile full)`;
    return pass(
      `${polls.length} further polls, the last ${Math.floor(later)} s after completion, all read ${outcome.state.field}=${outcome.state.value}${note}`
    );
  },
};
