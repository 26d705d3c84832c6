// Globals k6 provides that @types/k6 does not declare (k6 implements console; lib "dom" would bring far more).
export {};

declare global {
  var console: {
    log(...args: unknown[]): void;
    info(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
    debug(...args: unknown[]): void;
  };
}
