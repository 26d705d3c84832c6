// @ts-check
// The seed's documented limits (sections 4, 5 and 8), once for the engine and the k6 scripts (load/lib/ imports this
// folder). ES2015 module syntax and only built-ins k6 v0.38's runtime has: test/load/syntax.test.ts checks it.

/** Requests accepted per 60-second window, with the clause that states each and whom it is counted for. */
export const LIMITS = Object.freeze({
  reads: Object.freeze({
    limit: 300,
    scope: 'token',
    clause: 'LIMIT-READ-300',
    title: 'Read requests: 300 per minute per token',
  }),
  writes: Object.freeze({
    limit: 60,
    scope: 'token',
    clause: 'LIMIT-WRITE-60',
    title: 'Write requests: 60 per minute per token',
  }),
  tokens: Object.freeze({
    limit: 10,
    scope: 'API key',
    clause: 'LIMIT-TOKEN-10',
    title: 'Token issuance: 10 per minute per API key',
  }),
});

/**
 * The two per-token budgets, named as LIMITS names them: a GET or HEAD spends `reads`, any other method `writes`.
 * @typedef {'reads' | 'writes'} RequestClass
 */

/**
 * The budget a request of this method spends (LIMIT-READ-300, LIMIT-WRITE-60).
 * @param {string} method
 * @returns {RequestClass}
 */
export function classOfMethod(method) {
  return method === 'GET' || method === 'HEAD' ? 'reads' : 'writes';
}

/** Length of a limit window in target-seconds ("per minute"). */
export const WINDOW_SECONDS = 60;

/** Length of a limit window in target milliseconds. */
export const WINDOW_TARGET_MS = WINDOW_SECONDS * 1000;

/** Documented maximum of per_page (PAGE-MAX-100). */
export const PER_PAGE_MAX = 100;

/** Token validity in seconds (AUTH-TOKEN-TTL). */
export const TOKEN_LIFETIME_SECONDS = 3600;
