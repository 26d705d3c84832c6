import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ProgressView, colourWanted, clock, type Terminal } from '../../src/cli/progress.ts';
import type { Wait } from '../../src/engine/transport/waits.ts';
import type { Check } from '../../src/engine/run/check.ts';
import type { CheckReport } from '../../src/engine/run/report.ts';

const BIN = fileURLToPath(new URL('../../bin/cloud-conformance.js', import.meta.url));
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

function recorder(isTTY: boolean): Terminal & { text: string } {
  const t = { text: '', isTTY, columns: 200, write: (s: string) => void (t.text += s) };
  return t;
}

/** A manual clock: tick() is what the view's once-a-second timer would call. */
function manual() {
  let now = 1_000_000;
  let fn: (() => void) | undefined;
  return {
    now: () => now,
    every: (f: () => void) => ((fn = f), () => (fn = undefined)),
    advance: (ms: number) => ((now += ms), fn?.()),
  };
}

const check = { id: 'auth.token-expiry' } as Check;
const report = (status: CheckReport['status']) =>
  ({ id: 'auth.token-expiry', level: 'must', status, message: 'done' }) as CheckReport;

describe('progress', () => {
  it('colour follows NO_COLOR and FORCE_COLOR, else the terminal', () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, true)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
  });

  it('writes durations as m:ss, and h:mm:ss from an hour', () => {
    expect([clock(0), clock(75_000), clock(3_602_000)]).toEqual(['0:00', '1:15', '1:00:02']);
  });

  it('on a terminal: one status line, redrawn each second with the elapsed and remaining time of an hour-long wait', () => {
    const c = manual();
    const term = recorder(true);
    const view = new ProgressView(term, { colour: false, now: c.now, every: c.every, total: 9 });
    view.onCheckStart(check);
    const w: Wait = {
      what: 'the token lifetime to pass',
      by: 'auth.token-expiry',
      startedAt: c.now(),
      endsAt: c.now() + 3_602_000,
      upTo: false,
    };
    view.onWaitStart(w);
    c.advance(1000);
    c.advance(60_000);
    const frames = term.text
      .split('\r')
      .map(plain)
      .filter((f) => f.includes('left'));
    expect(frames[0]).toContain('[1/9] auth.token-expiry');
    expect(frames.some((f) => f.includes('1:00:01 left, 0:01 elapsed: waiting for the token lifetime to pass'))).toBe(
      true
    );
    expect(frames.some((f) => f.includes('59:01 left, 1:01 elapsed'))).toBe(true);
    view.onWaitEnd(w);
    view.onCheckEnd(report('passed'));
    // The check's line stays; the status line is cleared before it, so nothing is left half-drawn.
    expect(plain(term.text)).toMatch(/\rPASS {2}auth\.token-expiry/);
    expect(term.text.includes('\n')).toBe(true);
    view.close();
  });

  it('off a terminal (CI): a line when a long wait starts and one each minute, never a carriage return', () => {
    const c = manual();
    const term = recorder(false);
    const view = new ProgressView(term, { colour: false, now: c.now, every: c.every });
    view.onCheckStart(check);
    const w: Wait = {
      what: 'the token lifetime to pass',
      by: 'auth.token-expiry',
      startedAt: c.now(),
      endsAt: c.now() + 3_602_000,
      upTo: false,
    };
    view.onWaitStart(w);
    for (let i = 0; i < 150; i++) c.advance(1000);
    view.onWaitEnd(w);
    view.onCheckEnd(report('passed'));
    view.close();
    const lines = term.text.replace(/\n$/, '').split('\n');
    expect(lines[0]).toBe('  … auth.token-expiry: waiting for the token lifetime to pass (1:00:02)');
    expect(lines.filter((l) => l.includes('still waiting'))).toEqual([
      '  … auth.token-expiry: still waiting for the token lifetime to pass: 1:00 elapsed, 59:02 left',
      '  … auth.token-expiry: still waiting for the token lifetime to pass: 2:00 elapsed, 58:02 left',
    ]);
    expect(term.text).not.toContain('\r');
  });

  // A real run under a pseudo-terminal (util-linux script): the token-expiry wait of the full profile at time scale 600
  // lasts 6 real seconds and counts down on the status line.
  it.skipIf(!existsSync('/usr/bin/script'))(
    'shows a countdown during the token-expiry wait when run in a terminal',
    () => {
      const r = spawnSync(
        '/usr/bin/script',
        ['-qfec', `${process.execPath} ${BIN} run --profile full --only auth --time-scale 600 --seed 1`, '/dev/null'],
        { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TERM: 'xterm', NO_COLOR: '' } }
      );
      const frames = plain(r.stdout)
        .split('\r')
        .filter((f) => /auth\.token-expiry .* left, .* elapsed: waiting for the token lifetime/.test(f));
      const left = frames.map((f) => /(\d+):(\d\d) left/.exec(f)!).map((m) => Number(m[1]) * 60 + Number(m[2]));
      expect(left.length).toBeGreaterThanOrEqual(3);
      expect(left[0]).toBeGreaterThanOrEqual(4);
      expect(left[left.length - 1]).toBeLessThan(left[0]!);
      expect(plain(r.stdout)).toMatch(/verdict: conformant/);
    }
  );
});
