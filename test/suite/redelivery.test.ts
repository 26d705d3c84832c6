// An event the receiver acknowledged must not come again when retries are declared to follow failures (a
// target that re-sent acknowledged events passed; the receiver saw 26 deliveries where 21 were due).
import { describe, expect, it } from 'vitest';
import { redeliveredAfterAck } from '../../suites/webhooks/no-redelivery.ts';
import { REFERENCE_OVERLAY, runAgainstReference, statusOf } from '../helpers.ts';
import type { Delivery } from '../../src/engine/events/webhook-receiver.ts';

const delivery = (path: string, id: string, answered: number, receivedAt: number): Delivery => ({
  path,
  headers: { 'webhook-id': id },
  raw: Buffer.from('{}'),
  json: {},
  receivedAt,
  answered,
});

describe('redeliveredAfterAck', () => {
  it('finds an attempt after a 2xx of the same event at the same endpoint, and nothing else', () => {
    expect(
      redeliveredAfterAck([
        delivery('/a', 'e1', 503, 1),
        delivery('/a', 'e1', 204, 2),
        delivery('/b', 'e1', 204, 3),
        delivery('/a', 'e2', 204, 4),
      ])
    ).toEqual([]);
    expect(redeliveredAfterAck([delivery('/a', 'e1', 204, 1), delivery('/a', 'e1', 204, 5)])).toEqual([
      { path: '/a', key: 'e1', ackedWith: 204 },
    ]);
  });
});

describe('webhooks.no-redelivery on the reference', () => {
  it('passes the clean reference and fails webhook-redelivers-acknowledged', async () => {
    const clean = await runAgainstReference({ overlay: REFERENCE_OVERLAY, only: ['webhooks'] });
    expect(
      statusOf(clean, 'webhooks.no-redelivery'),
      clean.checks.find((c) => c.id === 'webhooks.no-redelivery')?.message
    ).toBe('passed');
    const faulty = await runAgainstReference({
      overlay: REFERENCE_OVERLAY,
      only: ['webhooks'],
      faults: ['webhook-redelivers-acknowledged'],
    });
    expect(
      statusOf(faulty, 'webhooks.no-redelivery'),
      faulty.checks.find((c) => c.id === 'webhooks.no-redelivery')?.message
    ).toBe('failed');
  });
});
