// The zoo's fixed contract (fixtures/zoo/README.md): each member is a folder with an executable `run` that takes
// --port, --time-scale and --faults, prints one JSON line of settings once it listens, and lists its fault catalogue
// with --list-faults. This module starts and stops members and reads their catalogues; it knows nothing of the suite.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const ZOO_DIR = path.resolve('fixtures/zoo');

/** What a member prints once it listens: where it is and what a run needs to create things there. */
export interface MemberSettings {
  baseUrl: string;
  apiKey: string;
  apiKeyB: string;
  apiKeyReadonly: string;
  image: string;
  subnetId: string;
  subnetIdB: string;
}

/** One fault of a member's own catalogue, as its blind author wrote it. */
export interface MemberFault {
  name: string;
  level: 'MUST' | 'SHOULD';
  /** The seed's sentence it breaks, quoted (for SHOULD: the convention). */
  clause: string;
  description: string;
}

interface StartedMember {
  settings: MemberSettings;
  stop(): Promise<void>;
}

/** The members: every folder of fixtures/zoo with an executable `run`. */
export function listMembers(dir = ZOO_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'run')))
    .map((d) => d.name)
    .sort();
}

const SETTINGS_KEYS: Array<keyof MemberSettings> = [
  'baseUrl',
  'apiKey',
  'apiKeyB',
  'apiKeyReadonly',
  'image',
  'subnetId',
  'subnetIdB',
];

/** The settings line, checked against the contract: a member that breaks it is named with what is missing. */
export function parseSettings(member: string, line: string): MemberSettings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`${member}: its first line is not JSON: ${line.slice(0, 200)}`);
  }
  const o = parsed as Record<string, unknown>;
  const missing = SETTINGS_KEYS.filter((k) => typeof o[k] !== 'string' || o[k] === '');
  if (missing.length) throw new Error(`${member}: its settings line lacks ${missing.join(', ')}`);
  const url = new URL(o['baseUrl'] as string);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost')
    throw new Error(`${member}: listens at ${url.host}, not on this machine's loopback`);
  return Object.fromEntries(SETTINGS_KEYS.map((k) => [k, o[k]])) as unknown as MemberSettings;
}

/** The catalogue from `run --list-faults` (JSON Lines). */
export function parseCatalogue(member: string, text: string): MemberFault[] {
  const faults: MemberFault[] = [];
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const f = JSON.parse(line) as Partial<MemberFault>;
    if (typeof f.name !== 'string' || (f.level !== 'MUST' && f.level !== 'SHOULD') || typeof f.clause !== 'string') {
      throw new Error(`${member}: a catalogue line breaks the contract: ${line.slice(0, 200)}`);
    }
    faults.push({ name: f.name, level: f.level, clause: f.clause, description: f.description ?? '' });
  }
  return faults;
}

export function readCatalogue(member: string, dir = ZOO_DIR): Promise<MemberFault[]> {
  return new Promise((resolve, reject) => {
    // The first call may build the member (go build, npm ci): minutes on a cold machine.
    execFile(
      path.join(dir, member, 'run'),
      ['--list-faults'],
      { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${member}: run --list-faults failed: ${err.message} ${stderr.slice(-500)}`));
        try {
          resolve(parseCatalogue(member, stdout));
        } catch (e) {
          reject(e as Error);
        }
      }
    );
  });
}

/** Starts a member on an ephemeral port; resolves once its settings line arrives. */
export function startMember(
  member: string,
  opts: { timeScale: number; faults?: string[] },
  dir = ZOO_DIR
): Promise<StartedMember> {
  const args = ['--port', '0', '--time-scale', String(opts.timeScale)];
  if (opts.faults?.length) args.push('--faults', opts.faults.join(','));
  const child: ChildProcess = spawn(path.join(dir, member, 'run'), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const killer = setTimeout(() => kill(child, 'SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(killer);
        resolve();
      });
      kill(child, 'SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${member}: no settings line within 120 s; stderr: ${stderr.slice(-500)}`));
    }, 120_000);
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve({ settings: parseSettings(member, line), stop });
      } catch (err) {
        void stop();
        reject(err as Error);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${member}: exited (${code}) before its settings line; stderr: ${stderr.slice(-500)}`));
    });
  });
}

/** The member and whatever it started (a build step, a JVM): its whole process group. */
function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
}
