// Fault probes of the limits checks' faults: each observation on a clean target and on one with only that fault.
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';
import { call, type Res } from '../harness.ts';
import { tokenFor, sleep, createVm, burst, count, issue, write, windowHalves } from '../probes.ts';
import type { FaultCase } from './index.ts';
import { servedOperationCases } from './served-operations.ts';

/** Spends the key's issuance budget, then asks again 12 target seconds later (time scale 60: 200 ms). */
async function issuedAfter12s(s: ReferenceSettings): Promise<number> {
  const spent = await burst(11, () => issue(s));
  if (count(spent, 429) !== 1) throw new Error('the issuance budget was not spent');
  await sleep(12_000 / 60);
  return (await issue(s)).status;
}

const read = (s: ReferenceSettings, t: string) => call(s, 'GET', '/v1/vms?per_page=1', { token: t });

/** [accepted, refused] of a concurrent burst just over each documented budget (default time scale: one window is a real minute). */
const readLimitProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const rs = await burst(302, () => read(s, t));
  return [count(rs, 200), count(rs, 429)];
};

const writeLimitProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const rs = await burst(62, () => write(s, t));
  return [count(rs, 400), count(rs, 429)];
};

const tokenLimitProbe = async (s: ReferenceSettings) => {
  const rs = await burst(12, () => issue(s));
  return [count(rs, 200), count(rs, 429)];
};

/** Spends token 1's read and write budgets, then uses another token of the same key and a token of key B. */
const requestScopeProbe = async (s: ReferenceSettings) => {
  const [t1, t2, tb] = [await tokenFor(s), await tokenFor(s), await tokenFor(s, s.apiKeyB)];
  await Promise.all([burst(60, () => write(s, t1)), burst(300, () => read(s, t1))]);
  return [
    (await write(s, t2)).status,
    (await write(s, tb)).status,
    (await read(s, t2)).status,
    (await read(s, tb)).status,
  ];
};

/** Shape of an issuance 429 and of a write 429: [status, content type, error code or whole body, has Retry-After]. */
const rejectionProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const [iss, ws] = await Promise.all([burst(10, () => issue(s)), burst(61, () => write(s, t))]);
  return [iss, ws].map((rs) => {
    const r = rs.find((x) => x.status === 429)!;
    return [
      r.status,
      r.headers.get('content-type'),
      r.body.error ? r.body.error.code : r.body,
      r.headers.has('retry-after'),
    ];
  });
};

export const faults: FaultCase[] = [
  {
    name: 'read-limit-readonly-600',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyReadonly);
      return count(await burst(301, () => read(s, t)), 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'write-limit-second-org-120',
    probe: async (s) => {
      // The primary organization writes first (as every run does), then a second-organization token bursts 61 empty creates.
      await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: {} });
      const t = await tokenFor(s, s.apiKeyB);
      return count(await burst(61, () => call(s, 'POST', '/v1/vms', { token: t, json: {} })), 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'writes-beyond-create-uncharged',
    probe: async (s) => {
      const t = await tokenFor(s);
      const deletes = await burst(61, () => call(s, 'DELETE', '/v1/vms/vm-that-exists-nowhere', { token: t }));
      return count(deletes, 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'task-read-charged-as-write',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await createVm(s, t);
      const polls = await burst(60, () => call(s, 'GET', `/v1/tasks/${c.body.task_id}`, { token: t }));
      return [count(polls, 429), (await write(s, t)).status];
    },
    clean: [0, 400],
    faulty: [1, 429],
  },
  { name: 'read-limit-missing', probe: readLimitProbe, clean: [300, 2], faulty: [302, 0] },
  { name: 'read-limit-299', probe: readLimitProbe, clean: [300, 2], faulty: [299, 3] },
  { name: 'read-limit-301', probe: readLimitProbe, clean: [300, 2], faulty: [301, 1] },
  { name: 'write-limit-missing', probe: writeLimitProbe, clean: [60, 2], faulty: [62, 0] },
  { name: 'write-limit-59', probe: writeLimitProbe, clean: [60, 2], faulty: [59, 3] },
  { name: 'write-limit-61', probe: writeLimitProbe, clean: [60, 2], faulty: [61, 1] },
  { name: 'token-limit-missing', probe: tokenLimitProbe, clean: [10, 2], faulty: [12, 0] },
  { name: 'token-limit-9', probe: tokenLimitProbe, clean: [10, 2], faulty: [9, 3] },
  { name: 'token-limit-11', probe: tokenLimitProbe, clean: [10, 2], faulty: [11, 1] },
  {
    name: 'limits-shared-across-tokens',
    probe: requestScopeProbe,
    clean: [400, 400, 200, 200],
    faulty: [429, 400, 429, 200],
  },
  {
    name: 'request-limits-by-address',
    probe: requestScopeProbe,
    clean: [400, 400, 200, 200],
    faulty: [429, 429, 429, 429],
  },
  {
    name: 'token-limit-by-address',
    probe: async (s) => {
      const rs = await burst(10, () => issue(s));
      return [
        count(rs, 200),
        (await issue(s, s.apiKeyB)).status,
        (await issue(s, s.apiKeyReadonly)).status,
        (await issue(s)).status,
      ];
    },
    clean: [10, 200, 200, 429],
    faulty: [10, 429, 429, 429],
  },
  {
    name: 'rate-limit-no-error-object',
    probe: rejectionProbe,
    clean: [
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
    ],
    faulty: [
      [429, 'application/json; charset=utf-8', { status: 429, detail: 'slow down' }, true],
      [429, 'application/json; charset=utf-8', { status: 429, detail: 'slow down' }, true],
    ],
  },
  {
    name: 'no-retry-after',
    probe: rejectionProbe,
    clean: [
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
    ],
    faulty: [
      [429, 'application/json; charset=utf-8', 'rate_limited', false],
      [429, 'application/json; charset=utf-8', 'rate_limited', false],
    ],
  },
  {
    name: 'window-never-resets',
    timeScale: 20, // one 60-second window = 3 real seconds
    probe: async (s) => {
      const t = await tokenFor(s);
      const [iss, ws] = await Promise.all([burst(10, () => issue(s)), burst(61, () => write(s, t))]);
      await sleep(3_300);
      const after = [await issue(s), await write(s, t)];
      const retryAfter = (r: Res) => (r.status === 429 ? Number(r.headers.get('retry-after')) : null);
      return [
        count(iss, 429),
        count(ws, 429),
        ...after.map((r) => r.status),
        ...after.map((r) => {
          const ra = retryAfter(r);
          return ra === null ? null : ra >= 1 && ra <= 60;
        }),
      ];
    },
    clean: [1, 1, 200, 400, null, null],
    faulty: [1, 1, 429, 429, true, true],
  },
  // The declared accounting, each fault the other choice's behaviour.
  { name: 'limit-window-sliding', timeScale: 10, probe: windowHalves, clean: [30, 60], faulty: [30, 30] },
  {
    name: 'limit-window-fixed',
    timeScale: 10,
    variants: ['limit-sliding-window'],
    probe: windowHalves,
    clean: [30, 30],
    faulty: [30, 60],
  },
  // A minute's window still holds the spent budget 12 s later; a 10 s window has passed.
  { name: 'issuance-window-10s', timeScale: 60, probe: issuedAfter12s, clean: 429, faulty: 200 },
  {
    name: 'refused-requests-uncounted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return count(await burst(61, () => write(s, t)), 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'refused-requests-counted',
    variants: ['limit-refused-not-counted'],
    probe: async (s) => {
      const t = await tokenFor(s);
      return count(await burst(61, () => write(s, t)), 429);
    },
    clean: 0,
    faulty: 1,
  },
  {
    name: 'retry-after-counts-real-seconds',
    timeScale: 20,
    probe: async (s) => {
      const rejected = (await burst(11, () => issue(s))).find((r) => r.status === 429)!;
      // Target seconds to the window's end (about 60), or the real seconds they take at scale 20 (about 3).
      return Number(rejected.headers.get('retry-after')) > 10;
    },
    clean: true,
    faulty: false,
  },
  // The faults of the fault model (spec/clauses.yaml faults:).
  {
    name: 'window-120s',
    timeScale: 20, // 60 target-seconds = 3 s: room for the burst however loaded the machine
    probe: async (s) => {
      const t = await tokenFor(s);
      const ws = await burst(61, () => write(s, t));
      const ra = Number(ws.find((r) => r.status === 429)?.headers.get('retry-after'));
      await sleep(3300); // 66 target-seconds
      return [count(ws, 400), count(ws, 429), ra > 60, (await write(s, t)).status];
    },
    clean: [60, 1, false, 400],
    faulty: [60, 1, true, 429],
  },
  {
    name: 'reads-charged-to-write-budget',
    probe: async (s) => {
      const t = await tokenFor(s);
      const rs = await burst(300, () => read(s, t));
      return [count(rs, 200), (await write(s, t)).status];
    },
    clean: [300, 400],
    faulty: [300, 429],
  },
  {
    name: 'writes-charged-to-read-budget',
    probe: async (s) => {
      const t = await tokenFor(s);
      const ws = await burst(60, () => write(s, t));
      return [count(ws, 400), count(await burst(300, () => read(s, t)), 200)];
    },
    clean: [60, 300],
    faulty: [60, 240],
  },
  {
    name: 'token-limit-by-organization',
    probe: async (s) => {
      const rs = await burst(10, () => issue(s));
      return [count(rs, 200), (await issue(s, s.apiKeyReadonly)).status, (await issue(s, s.apiKeyB)).status];
    },
    clean: [10, 200, 200],
    faulty: [10, 429, 200],
  },
  // Tolerances and concurrent writes.
  {
    name: 'retry-after-date-past',
    probe: async (s) => {
      const refused = (await burst(11, () => issue(s))).find((r) => r.status === 429)!;
      const retryAfter = refused.headers.get('retry-after')!;
      const seconds = /^\d+$/.test(retryAfter);
      // A date-valued Retry-After, against the answer's own Date: before it or after it.
      const dated = seconds ? null : Date.parse(retryAfter) < Date.parse(refused.headers.get('date')!);
      return [seconds, dated];
    },
    clean: [true, null],
    faulty: [false, true],
  },
  // Writes side by side, each checked before any is counted 200 ms later under the fault: [past the budget, at it].
  {
    name: 'write-count-race',
    probe: async (s) => {
      const t = await tokenFor(s);
      const rs = await burst(62, () => write(s, t));
      const served = count(rs, 400);
      return [served > 60, served + count(rs, 429) === 62 && served >= 60];
    },
    clean: [false, true],
    faulty: [true, true],
  },
  ...servedOperationCases('vm-delete-not-counted-as-write', 'vm-read-charged-as-write', 'head-charged-as-write'),
];
