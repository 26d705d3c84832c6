import type { KeyName } from './tokens.ts';

export type Profile = 'quick' | 'full';

/** Everything a run needs, resolved from flags, environment and .env by the CLI. */
export interface RunConfig {
  baseUrl: string;
  keys: Partial<Record<KeyName, string>>;
  image?: string;
  subnetId?: string;
  overlayPath?: string;
  /** True when the overlay was not asked for but is the embedded reference target's own. */
  overlayImplicit?: boolean;
  profile: Profile;
  timeScale: number;
  seed: number;
  only?: string[];
  /** Random cases of the property phase (generated requests); the deterministic coverage pass comes on top. */
  runs: number;
  /** Real creates the write-limit probe may make when writes that create nothing are not counted (--allow-writes). */
  allowWrites: number;
  /** Target-seconds a task may take to reach a terminal state. */
  taskTimeoutSeconds: number;
  requestTimeoutSeconds: number;
  maxBodyBytes: number;
  /** Unique per run; names everything the run creates. */
  runId: string;
  /** True when the suite started the embedded reference target itself. */
  embedded: boolean;
}

/** Longest single wait the quick profile allows (real seconds). */
export const QUICK_MAX_WAIT_SECONDS = 5;
