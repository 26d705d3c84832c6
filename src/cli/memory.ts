// Dead Buffers (response bodies, S3 transfers) count against V8's external memory, which triggers a collection only
// after about 64 MB: a run that streams a 64 MiB object keeps that much resident for nothing. When the CLI runs with
// --expose-gc (bin/cloud-conformance.js starts it so), a young-generation collection whenever more than 8 MB of
// ArrayBuffers are held frees most of them within a twentieth of a second, and a full collection when that was not enough
// (a streamed body's buffers outlive two young collections while in flight, and die old). Without --expose-gc this
// does nothing.

const CHECK_EVERY_MS = 50;
const HELD_BYTES_BEFORE_COLLECTING = 8 * 1024 * 1024;
const HELD_BYTES_AFTER_A_YOUNG_COLLECTION = 16 * 1024 * 1024;

type Collect = (options?: { type?: 'minor' | 'major' }) => void;

/** What the reaper uses: the collector (globalThis.gc), how many ArrayBuffer bytes are held, and its timer. */
interface ReaperDeps {
  gc?: Collect;
  held(): number;
  every(fn: () => void, ms: number): () => void;
}

const processDeps = (): ReaperDeps => ({
  gc: (globalThis as { gc?: Collect }).gc,
  held: () => process.memoryUsage().arrayBuffers,
  every: (fn, ms) => {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
});

/** Starts collecting dead Buffers while a run moves data; returns the function that stops it. */
export function startBufferReaper(deps: ReaperDeps = processDeps()): () => void {
  const collect = deps.gc;
  if (typeof collect !== 'function') return () => {};
  let youngTried = false;
  return deps.every(() => {
    const held = deps.held();
    if (held <= HELD_BYTES_BEFORE_COLLECTING) youngTried = false;
    else if (!youngTried || held <= HELD_BYTES_AFTER_A_YOUNG_COLLECTION) {
      collect({ type: 'minor' });
      youngTried = true;
    } else {
      collect();
      youngTried = false;
    }
  }, CHECK_EVERY_MS);
}
