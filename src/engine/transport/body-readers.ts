// Readers that take a response body as it arrives, so a body far larger than the recorded copy (a megabyte audit
// export in JSON Lines or CSV) is judged whole without sitting in memory twice. The client feeds every chunk of each
// answer (SendOptions.read); a check keeps the reader and asks it for what it found once the call is done.
import { parse, type Parser } from 'csv-parse';

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
type JsonLinesResult<T> = { entries: T[]; lines: number } | { badLine: number; text: string };

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
 * RFC 4180 CSV read incrementally by csv-parse: quoted fields, doubled quotes, CRLF, LF or CR (mixed, as exports
 * joined from several writers are). The first row is the header; each later row goes through `map` with the header,
 * so only what the check needs is kept. A body that is not CSV (an unclosed quote) is named in `error`.
 */
export class CsvReader<T> implements BodyReader {
  private parser: Parser = newParser();
  private header: string[] | undefined;
  private rows: T[] = [];
  private error: string | undefined;

  constructor(private readonly map: (row: string[], header: readonly string[]) => T) {}

  begin(): void {
    this.parser = newParser();
    this.header = undefined;
    this.rows = [];
    this.error = undefined;
  }

  write(chunk: Uint8Array): void {
    if (!this.error) this.parser.write(chunk);
    this.drain();
  }

  end(): void {
    if (!this.error) this.parser.end();
    this.drain();
  }

  /** csv-parse pushes each record as its bytes arrive (the transform is synchronous): take them as they come. */
  private drain(): void {
    const parser = this.parser;
    const failure = (parser as Parser & { errored?: Error | null }).errored;
    if (failure && !this.error) this.error = failure.message;
    for (let row = parser.read() as string[] | null; row !== null; row = parser.read() as string[] | null) {
      if (this.header === undefined) this.header = row;
      else this.rows.push(this.map(row, this.header));
    }
  }

  /** The header and the mapped rows (rows of a single empty field, blank lines, are the mapper's to drop). */
  result(): { header: string[]; rows: T[]; error?: string } {
    return { header: this.header ?? [], rows: this.rows, ...(this.error ? { error: this.error } : {}) };
  }
}

/** One CSV answer's parser; its errors are read off it (drain), never thrown at the client that feeds it. */
function newParser(): Parser {
  const parser = parse({ record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, bom: true });
  parser.on('error', () => {});
  return parser;
}
