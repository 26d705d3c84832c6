// A tiny XML reader for the report tests: well-formedness (balanced tags, quoted attributes, known entities, one
// root) and the tree, so a test reads the JUnit report as a CI system would.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITY: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
const decode = (s: string) =>
  s.replace(/&([^;]*);/g, (_, e: string) => {
    if (e in ENTITY) return ENTITY[e]!;
    if (/^#\d+$/.test(e)) return String.fromCodePoint(Number(e.slice(1)));
    if (/^#x[0-9a-f]+$/i.test(e)) return String.fromCodePoint(parseInt(e.slice(2), 16));
    throw new Error(`unknown entity &${e};`);
  });

/** A tiny well-formedness check and parser: balanced tags, quoted attributes, known entities, one root. */
export function parseXml(xml: string): XmlElement {
  const s = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    const text = s.slice(i, lt === -1 ? s.length : lt);
    if (/&(?![a-z]+;|#\d+;|#x[0-9a-f]+;)/i.test(text)) throw new Error(`bare & in text at ${i}`);
    stack[stack.length - 1]!.text += decode(text);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(s);
    if (!m) throw new Error(`malformed tag at ${lt}: ${s.slice(lt, lt + 60)}`);
    const [, close, name, attrText, selfClose] = m;
    if (close) {
      const open = stack.pop()!;
      if (open.name !== name) throw new Error(`</${name}> closes <${open.name}>`);
    } else {
      const attrs: Record<string, string> = {};
      for (const a of attrText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
        if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        if (/&(?![a-z]+;|#\d+;|#x[0-9a-f]+;)/i.test(a[2]!)) throw new Error(`bare & in attribute ${a[1]}`);
        attrs[a[1]!] = decode(a[2]!);
      }
      const el: XmlElement = { name: name!, attrs, children: [], text: '' };
      stack[stack.length - 1]!.children.push(el);
      if (!selfClose) stack.push(el);
    }
    i = tag.lastIndex;
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1) throw new Error('not exactly one root element');
  if (root.text.trim()) throw new Error('text outside the root element');
  return root.children[0]!;
}

export const all = (el: XmlElement, name: string): XmlElement[] => [
  ...(el.name === name ? [el] : []),
  ...el.children.flatMap((c) => all(c, name)),
];
