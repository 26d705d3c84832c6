const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;

/**
 * Keeps secrets (API keys, tokens, anything derived from them) out of everything the suite prints or writes.
 * Every secret the run learns is registered here; every string leaving the engine passes through redact().
 */
export class Redactor {
  private readonly secrets = new Map<string, string>();

  add(secret: string | undefined, label: string): void {
    // Very short values would redact innocent text; real keys and tokens are long.
    if (secret && secret.length >= 8) this.secrets.set(secret, label);
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a token containing a shorter secret is replaced whole.
    const entries = [...this.secrets.entries()].sort((a, b) => b[0].length - a[0].length);
    for (const [secret, label] of entries) out = out.split(secret).join(`[REDACTED ${label}]`);
    return out.replace(JWT_SHAPE, '[REDACTED token]');
  }

  redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      out[k] = k.toLowerCase() === 'authorization' ? v.replace(/^(\S+\s+).*$/s, '$1[REDACTED]') : this.redact(v);
    }
    return out;
  }
}
