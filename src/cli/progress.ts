import type { Check } from '../engine/run/check.ts';
import type { Wait } from '../engine/transport/waits.ts';
import type { CheckReport } from '../engine/run/report.ts';
import type { RunHooks } from '../engine/run/runner.ts';
import { checkLine } from '../report/terminal.ts';

/** Where the run's progress goes: the process's stdout, or a test's recorder. */
export interface Terminal {
  write(text: string): void;
  isTTY: boolean;
  columns?: number;
}

/** Colour follows NO_COLOR (https://no-color.org) and FORCE_COLOR, else whether the output is a terminal. */
export function colourWanted(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return !['0', 'false'].includes(force.toLowerCase());
  return isTTY;
}

const SGR = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;
type Paint = (style: keyof typeof SGR, text: string) => string;
const painter =
  (on: boolean): Paint =>
  (style, text) =>
    on ? `\x1b[${SGR[style]}m${text}\x1b[0m` : text;

/** 75 s → 1:15; an hour or more → 1:00:02. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** The check lines in colour: what a failure, a warning, a skip looks like at a glance. */
function paintCheckLine(c: CheckReport, paint: Paint): string {
  const line = checkLine(c);
  const style =
    c.status === 'passed'
      ? 'green'
      : c.status === 'failed' || c.status === 'error'
        ? 'red'
        : c.status === 'warning'
          ? 'yellow'
          : 'dim';
  return paint(style, line.slice(0, 4)) + line.slice(4);
}

interface ProgressOptions {
  colour: boolean;
  now?: () => number;
  /** Calls fn every ms; returns how to stop it (tests pass a manual clock). */
  every?: (fn: () => void, ms: number) => () => void;
  /** Checks the run will take (for [n/total]). */
  total?: number;
}

const defaultEvery = (fn: () => void, ms: number) => {
  const t = setInterval(fn, ms);
  t.unref();
  return () => clearInterval(t);
};

/**
 * The run as a person sees it. On a terminal: each check's line as it ends, and below them one live status line with the
 * checks under way and, for every wait longer than 2 s, the time elapsed and left (a countdown, an hour-long one too).
 * Off a terminal (CI logs): plain lines only, one when a long wait starts and one each minute while it lasts.
 */
export class ProgressView implements RunHooks {
  private readonly paint: Paint;
  private readonly now: () => number;
  private readonly running: string[] = [];
  private readonly waits = new Map<Wait, { lastReport: number }>();
  private started = 0;
  private statusShown = false;
  private readonly stop: () => void;

  constructor(
    private readonly term: Terminal,
    private readonly opts: ProgressOptions
  ) {
    this.paint = painter(opts.colour);
    this.now = opts.now ?? Date.now;
    this.stop = (opts.every ?? defaultEvery)(() => this.tick(), 1000);
  }

  /** A line that stays: on a terminal the status line is cleared first and drawn again below it. */
  line(text: string): void {
    this.clearStatus();
    this.term.write(text + '\n');
    this.drawStatus();
  }

  /** Something written elsewhere (stderr) while the status line is shown: cleared first, drawn again after. */
  aside(write: () => void): void {
    this.clearStatus();
    write();
    this.drawStatus();
  }

  onCheckStart(check: Check): void {
    this.started++;
    this.running.push(check.id);
    this.drawStatus();
  }

  onCheckEnd(report: CheckReport): void {
    const i = this.running.indexOf(report.id);
    if (i >= 0) this.running.splice(i, 1);
    this.line(paintCheckLine(report, this.paint));
  }

  onWaitStart(w: Wait): void {
    this.waits.set(w, { lastReport: this.now() });
    if (!this.term.isTTY)
      this.term.write(
        `  ${this.paint('dim', '…')} ${w.by}: waiting for ${w.what} (${w.upTo ? 'up to ' : ''}${clock(w.endsAt - w.startedAt)})\n`
      );
    this.drawStatus();
  }

  onWaitEnd(w: Wait): void {
    this.waits.delete(w);
    this.drawStatus();
  }

  /** Once a second: the countdown on a terminal; a line a minute per long wait elsewhere. */
  tick(): void {
    if (this.term.isTTY) return this.drawStatus();
    const now = this.now();
    for (const [w, seen] of this.waits) {
      if (now - seen.lastReport < 60_000) continue;
      seen.lastReport = now;
      this.term.write(
        `  ${this.paint('dim', '…')} ${w.by}: still waiting for ${w.what}: ${clock(now - w.startedAt)} elapsed, ${w.upTo ? 'up to ' : ''}${clock(w.endsAt - now)} left\n`
      );
    }
  }

  close(): void {
    this.stop();
    this.clearStatus();
  }

  /** The status line: checks under way, and the longest wait with its countdown. */
  status(): string {
    const now = this.now();
    const total = this.opts.total ? `/${this.opts.total}` : '';
    const checks = this.running.length
      ? `${this.running[0]}${this.running.length > 1 ? ` +${this.running.length - 1}` : ''}`
      : '';
    const longest = [...this.waits.keys()].sort((a, b) => b.endsAt - a.endsAt)[0];
    // The countdown first, so a narrow terminal cuts the description, never the time.
    const wait = longest
      ? ` ${this.paint('yellow', '⏳')} ${longest.upTo ? 'up to ' : ''}${clock(longest.endsAt - now)} left, ${clock(now - longest.startedAt)} elapsed: waiting for ${longest.what}`
      : '';
    return `${this.paint('dim', `[${this.started}${total}]`)} ${checks}${wait}`;
  }

  private drawStatus(): void {
    if (!this.term.isTTY || (!this.running.length && !this.waits.size)) return;
    const width = this.term.columns || 120;
    // Cut to the terminal's width (counting visible characters only), so the line never wraps and \r can redraw it.
    let visible = 0;
    let out = '';
    for (const part of this.status().split(/(\x1b\[[0-9;]*m)/)) {
      if (part.startsWith('\x1b[')) out += part;
      else {
        const room = width - 1 - visible;
        out += [...part].slice(0, Math.max(0, room)).join('');
        visible += Math.min([...part].length, Math.max(0, room));
      }
    }
    this.term.write(`\r\x1b[2K${out}`);
    this.statusShown = true;
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.term.write('\r\x1b[2K');
    this.statusShown = false;
  }
}
