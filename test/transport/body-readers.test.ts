// Bodies read whole as they arrive: whatever the chunk boundaries (inside a line, a quoted field, a CRLF, a multi-byte
// character), the readers find what a parse of the whole text finds.
import { describe, expect, it } from 'vitest';
import { CsvReader, JsonLinesReader, type BodyReader } from '../../src/engine/transport/body-readers.ts';

/** Feeds `text` to a reader in chunks of `size` bytes (the reader is begun and ended as the client does). */
function feed(reader: BodyReader, text: string, size: number): void {
  const bytes = Buffer.from(text, 'utf8');
  reader.begin();
  for (let i = 0; i < bytes.length; i += size) reader.write(bytes.subarray(i, i + size));
  reader.end();
}

const JSONL = '{"id":"a","who":"Zoë"}\n\n{"id":"b","note":"line\\nbreak"}\r\n\u001e{"id":"c"}\n{"id":"d"}';
const CSV = 'id,actor,note\r\na,k1,"with ""quotes"", and a comma"\r\nb,k2,"two\r\nlines"\nc,k3,€ sign\r\n';

describe('JsonLinesReader', () => {
  for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
    it(`finds every entry with chunks of ${size} bytes`, () => {
      const r = new JsonLinesReader((e) => (e as { id: string }).id);
      feed(r, JSONL, size);
      expect(r.result()).toEqual({ entries: ['a', 'b', 'c', 'd'], lines: 5 });
    });
  }

  it('names the first line that is not JSON (a cut entry), whatever the chunks', () => {
    for (const size of [1, 4, 1000]) {
      const r = new JsonLinesReader((e) => e);
      feed(r, '{"id":"a"}\n{"id":"b"}\n{"id":"c","wh', size);
      expect(r.result()).toMatchObject({ badLine: 3 });
    }
  });

  it('starts afresh on every answer (a retried call reuses the reader)', () => {
    const r = new JsonLinesReader((e) => (e as { id: string }).id);
    feed(r, '{"id":"x"}\nnot json\n', 3);
    feed(r, '{"id":"y"}\n', 3);
    expect(r.result()).toEqual({ entries: ['y'], lines: 1 });
  });
});

describe('CsvReader', () => {
  const expected = {
    header: ['id', 'actor', 'note'],
    rows: [
      ['a', 'k1', 'with "quotes", and a comma'],
      ['b', 'k2', 'two\r\nlines'],
      ['c', 'k3', '€ sign'],
    ],
  };
  for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
    it(`reads quoted fields, doubled quotes, CRLF and LF, and UTF-8 with chunks of ${size} bytes`, () => {
      const r = new CsvReader((row) => row);
      feed(r, CSV, size);
      expect(r.result()).toEqual(expected);
    });
  }

  it('names a body that is not CSV (a quote never closed), whatever the chunks, instead of throwing', () => {
    for (const size of [1, 5, 4096]) {
      const r = new CsvReader((row) => row);
      feed(r, 'id,note\na,"never closed\nb,x\n', size);
      expect(r.result().error).toMatch(/quote/i);
    }
  });

  it('keeps a last row without a line end, and an empty field at the end of a row', () => {
    const r = new CsvReader((row) => row);
    feed(r, 'a,b\n1,\n2,x', 1);
    expect(r.result()).toEqual({
      header: ['a', 'b'],
      rows: [
        ['1', ''],
        ['2', 'x'],
      ],
    });
  });
});
