// Worker thread for test/load/flow.test.ts: runs the reference target (and, on request, a front that answers
// token issuance 201 instead of 200) and performs HTTP requests for the main thread, which waits for each answer
// synchronously, the way k6 calls http. The main thread cannot serve while it waits, so the servers live here.
import { parentPort, workerData } from 'node:worker_threads';
import { createServer, request as httpRequest } from 'node:http';

const { register } = await import('tsx/esm/api');
register();
const { startReference } = await import(workerData.serverModule);

const target = await startReference({ faults: workerData.faults, timeScale: workerData.timeScale });
let front;
if (workerData.issuanceStatus) {
  // Forwards everything; a successful POST /v1/auth/tokens is answered with the given status instead of 200.
  const upstream = new URL(target.settings.baseUrl);
  front = createServer((req, res) => {
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const issuance = req.method === 'POST' && req.url === '/v1/auth/tokens' && up.statusCode === 200;
        res.writeHead(issuance ? workerData.issuanceStatus : (up.statusCode ?? 502), up.headers);
        up.pipe(res);
      }
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise((resolve) => front.listen(0, '127.0.0.1', resolve));
}
const baseUrl = front ? `http://127.0.0.1:${front.address().port}` : target.settings.baseUrl;

const { flag, port } = workerData;
const signal = new Int32Array(flag);

/** One request, answered on the port; the main thread is woken through the shared flag. */
async function perform(req) {
  let answer;
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body ?? undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const headers = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const body = await res.text();
    answer = { status: res.status, body: req.readBody ? body : null, headers };
  } catch (err) {
    answer = { status: 0, body: null, headers: {}, error: String(err?.message ?? err) };
  }
  port.postMessage(answer);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

parentPort.on('message', (m) => {
  if (m.type === 'request') void perform(m.req);
  if (m.type === 'close') {
    const fronted = front
      ? new Promise((r) => {
          front.close(r);
          front.closeAllConnections();
        })
      : undefined;
    Promise.all([target.close(), fronted]).then(() => parentPort.postMessage({ type: 'closed' }));
  }
});
parentPort.postMessage({ type: 'ready', settings: { ...target.settings, baseUrl } });
