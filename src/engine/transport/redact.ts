const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;

/**
 * Keeps secrets (API keys, tokens, anything derived from them) out of everything the suite prints or writes.
 * Every secret the run learns is registered here; every string leaving the engine passes through redact().
 */
export class Redactor {
  private readonly secrets = new Map<string, string>();
  /** One alternation of every secret, longest first; rebuilt when a secret is added (redact runs on every exchange). */
  private pattern?: RegExp;

  add(secret: string | undefined, label: string): void {
    // Very short values would redact innocent text; real keys and tokens are long.
    if (secret && secret.length >= 8 && this.secrets.get(secret) !== label) {
      this.secrets.set(secret, label);
      this.pattern = undefined;
    }
  }

  redact(text: string): string {
    if (this.secrets.size) {
      // Longest first, so a token containing a shorter secret is replaced whole.
      this.pattern ??= new RegExp(
        [...this.secrets.keys()]
          .sort((a, b) => b.length - a.length)
          .map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('|'),
        'g'
      );
      text = text.replace(this.pattern, (m) => `[REDACTED ${this.secrets.get(m)}]`);
    }
    return text.replace(JWT_SHAPE, '[REDACTED token]');
  }

  redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      out[k] = k.toLowerCase() === 'authorization' ? v.replace(/^(\S+\s+).*$/s, '$1[REDACTED]') : this.redact(v);
    }
    return out;
  }
}
