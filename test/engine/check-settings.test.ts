import { describe, expect, it } from 'vitest';
import { checkSettings } from '../../src/engine/run/context.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';

// A check is given the run's settings, not the config: no key (it gets tokens from `tokens`), no receiver address, no
// scheduling. Held at run time too, so a check that prints or records its settings prints no secret.
describe("a check's settings", () => {
  const config = {
    baseUrl: 'http://127.0.0.1:9',
    keys: { primary: 'secret-primary-key-0001', second: 'secret-second-key-0002' },
    profile: 'quick',
    timeScale: 1,
    seed: 7,
    runId: 'r1',
    webhookListen: '127.0.0.1:0',
    sequential: false,
    allowWrites: 0,
    requireComplete: false,
  } as Partial<RunConfig> as RunConfig;

  it('carry what checks judge by, and none of the keys', () => {
    const settings = checkSettings(config);
    expect(settings).toMatchObject({ runId: config.runId, timeScale: 1, profile: 'quick', seed: config.seed });
    expect(Object.keys(settings)).not.toContain('keys');
    expect(JSON.stringify(settings)).not.toMatch(/secret-(primary|second)-key/);
    for (const hidden of ['webhookListen', 'sequential', 'allowWrites', 'requireComplete'])
      expect(Object.keys(settings)).not.toContain(hidden);
  });

  it('are frozen, and leave the config they came from whole', () => {
    const settings = checkSettings(config);
    expect(Object.isFrozen(settings)).toBe(true);
    expect(config.keys.primary).toBe('secret-primary-key-0001');
  });
});
