import { startMember } from './zoo/members.ts';
import { suiteArgs } from './zoo/suite-run.ts';
import { spawnSync } from 'node:child_process';
const [member, profile, overlay, seed, ...extra] = process.argv.slice(2);
const m = await startMember(member!, { timeScale: 60 });
const s = m.settings;
const args = suiteArgs(s, profile as 'quick', 60, '/tmp/repro.json', overlay === '-' ? undefined : overlay);
args.splice(args.indexOf('--quiet'), 1);
if (seed !== '-') args.push('--seed', seed!);
args.push(...extra);
const r = spawnSync(process.execPath, ['bin/cloud-conformance.js', ...args], {
  stdio: 'inherit',
  env: { ...process.env, CONFORMANCE_API_KEY: s.apiKey, CONFORMANCE_API_KEY_B: s.apiKeyB, CONFORMANCE_API_KEY_READONLY: s.apiKeyReadonly, NO_COLOR: '1' },
});
await m.stop();
process.exit(r.status ?? 1);
