// Readers that take a response body as it arrives, so a body far larger than the recorded copy (a megabyte audit
// export in JSON Lines or CSV) is judged whole without sitting in memory twice. The client feeds every chunk of each
// answer (SendOptions.read); a check keeps the reader and asks it for what it found once the call is done.

/** Takes one answer's body chunk by chunk; `begin` starts a new answer (a retried call feeds the same reader again). */
export interface BodyReader {
  begin(): void;
  write(chunk: Uint8Array): void;
  end(): void;
}

/** Splits UTF-8 chunks into text, a multi-byte character split across chunks kept whole. */
class Utf8Stream {
  private decoder = new TextDecoder('utf-8');
  reset(): void {
    this.decoder = new TextDecoder('utf-8');
  }
  text(chunk: Uint8Array): string {
    return this.decoder.decode(chunk, { stream: true });
  }
  flush(): string {
    return this.decoder.decode();
  }
}

/** What a JSON Lines body held: each entry through `map`, or the first line that is not JSON. */
export type JsonLinesResult<T> = { entries: T[]; lines: number } | { badLine: number; text: string };

/**
 * JSON Lines (and JSON text sequences, RFC 7464: a leading RS per record): one JSON value per line, blank lines
 * skipped. `map` keeps what the check needs of each entry (an id), not the entry.
 */
export class JsonLinesReader<T> implements BodyReader {
  private readonly utf8 = new Utf8Stream();
  private pending = '';
  private lineNo = 0;
  private entries: T[] = [];
  private bad?: { badLine: number; text: string };

  constructor(private readonly map: (entry: unknown) => T) {}

  begin(): void {
    this.utf8.reset();
    this.pending = '';
    this.lineNo = 0;
    this.entries = [];
    this.bad = undefined;
  }

  write(chunk: Uint8Array): void {
    if (this.bad) return;
    const text = this.pending + this.utf8.text(chunk);
    const lines = text.split('\n');
    this.pending = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  end(): void {
    const rest = this.pending + this.utf8.flush();
    this.pending = '';
    if (rest !== '' && !this.bad) this.line(rest);
  }

  private line(raw: string): void {
    this.lineNo++;
    const line = raw.replace(/\r$/, '').replace(/^\u001e/, '');
    if (this.bad || line.trim() === '') return;
    try {
      this.entries.push(this.map(JSON.parse(line)));
    } catch {
      this.bad = { badLine: this.lineNo, text: line.slice(0, 200) };
    }
  }

  result(): JsonLinesResult<T> {
    return this.bad ?? { entries: this.entries, lines: this.lineNo };
  }
}

/**
 * RFC 4180 CSV read incrementally: quoted fields, doubled quotes, CRLF or LF. The first row is the header; each later
 * row goes through `map` with the header, so only what the check needs is kept.
 */
export class CsvReader<T> implements BodyReader {
  private readonly utf8 = new Utf8Stream();
  private header: string[] | undefined;
  private rows: T[] = [];
  private row: string[] = [];
  private field = '';
  private quoted = false;
  /** A quote just closed a quoted field, or a CR just ended a row: the next character decides. */
  private afterQuote = false;
  private afterCr = false;
  private fieldStarted = false;

  constructor(private readonly map: (row: string[], header: readonly string[]) => T) {}

  begin(): void {
    this.utf8.reset();
    this.header = undefined;
    this.rows = [];
    this.row = [];
    this.field = '';
    this.quoted = this.afterQuote = this.afterCr = this.fieldStarted = false;
  }

  write(chunk: Uint8Array): void {
    this.consume(this.utf8.text(chunk));
  }

  end(): void {
    this.consume(this.utf8.flush());
    if (this.field !== '' || this.fieldStarted || this.row.length) this.endRow();
  }

  private consume(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (c === '\n') continue;
      }
      if (this.quoted) {
        if (this.afterQuote) {
          this.afterQuote = false;
          if (c === '"') {
            this.field += '"';
            continue;
          }
          this.quoted = false;
        } else if (c === '"') {
          this.afterQuote = true;
          continue;
        } else {
          this.field += c;
          continue;
        }
      }
      if (c === '"' && !this.fieldStarted) {
        this.quoted = true;
        this.fieldStarted = true;
      } else if (c === ',') {
        this.row.push(this.field);
        this.field = '';
        this.fieldStarted = false;
      } else if (c === '\n' || c === '\r') {
        this.afterCr = c === '\r';
        this.endRow();
      } else {
        this.field += c;
        this.fieldStarted = true;
      }
    }
  }

  private endRow(): void {
    this.row.push(this.field);
    if (this.header === undefined) this.header = this.row;
    else this.rows.push(this.map(this.row, this.header));
    this.row = [];
    this.field = '';
    this.fieldStarted = false;
  }

  /** The header and the mapped rows (rows of a single empty field, blank lines, are the mapper's to drop). */
  result(): { header: string[]; rows: T[] } {
    return { header: this.header ?? [], rows: this.rows };
  }
}
