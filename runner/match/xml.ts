import { ABSENT } from './value.ts';

// Parsing lives with the answers it reads (runner/util/xml.ts); re-exported for the matchers' callers.
export { parseXml } from '../util/xml.ts';

/**
 * An XML path: element names joined by `/`. A name picks the first such element; `/Name/2`
 * the third; `*` maps the rest of the path over every element and yields an array
 * (`/ListBucketResult/Contents/*\/Key` lists every key; `/ListBucketResult/Contents/*` is []
 * when there is none). `@attr` reads an attribute. Text content is a string. A first segment `*`
 * is the root whatever its name (`/*` the root element, `/*\/Status` its Status), for clauses that
 * name what a document holds and not what it is called. A last `#text` reads an element's text,
 * whether or not it carries attributes, and is ABSENT where it has none.
 */
export function getXmlPath(doc: unknown, path: string): unknown {
  const segments = path.split('/').filter((s) => s !== '');
  if (segments[0] === '*') {
    const root = rootName(doc);
    if (root === undefined) return ABSENT;
    segments[0] = root;
  }
  return walk(asRoot(doc, segments[0]), segments);
}

/** The document's one element name at the top, leaving out the declaration and text. */
function rootName(doc: unknown): string | undefined {
  if (!doc || typeof doc !== 'object') return undefined;
  return Object.keys(doc).find((k) => !k.startsWith('#') && !k.startsWith('?'));
}

/**
 * A path that names a `...Result` root also reads a `...Response` root of the same name, and back:
 * the AWS SDKs read a success answer's children and never its root's name, so
 * `CompleteMultipartUploadResponse` parses as `CompleteMultipartUploadResult` does, and no clause
 * states the suffix. Any other name is judged as written (a ListBucketResult is no VersioningConfiguration).
 */
function asRoot(doc: unknown, first: string | undefined): unknown {
  if (!first || !doc || typeof doc !== 'object' || first in doc) return doc;
  const twin = /Result$/.test(first)
    ? first.replace(/Result$/, 'Response')
    : /Response$/.test(first)
      ? first.replace(/Response$/, 'Result')
      : undefined;
  if (!twin || !(twin in doc)) return doc;
  return { [first]: (doc as Record<string, unknown>)[twin] };
}

function walk(cur: unknown, segments: string[]): unknown {
  if (segments.length === 0) return textOf(cur);
  const [seg, ...rest] = segments;
  if (seg === '*') {
    const list = Array.isArray(cur) ? cur : cur === ABSENT ? [] : [cur];
    return list.map((el) => walk(el, rest)).filter((v) => v !== ABSENT);
  }
  const node = Array.isArray(cur) ? cur[0] : cur;
  // An element of text alone parses as its text: `#text` reads it as it reads the text of an element
  // with attributes (`<A xmlns="x">t</A>`), and an element with no text has none.
  if (seg === '#text' && rest.length === 0 && typeof node === 'string') return node === '' ? ABSENT : node;
  if (node === undefined || node === null || typeof node !== 'object') return ABSENT;
  const children = (node as Record<string, unknown>)[seg];
  if (children === undefined) return rest[0] === '*' ? walk(ABSENT, rest) : ABSENT;
  if (seg.startsWith('@')) return rest.length ? ABSENT : children;
  const list = children as unknown[];
  if (rest.length && /^\d+$/.test(rest[0])) {
    const el = list[Number(rest[0])];
    return el === undefined ? ABSENT : walk([el], rest.slice(1));
  }
  if (rest[0] === '*') return walk(list, rest);
  return walk(list, rest);
}

/** An element's value: its text when it has only text, else the element (attributes and children). */
function textOf(cur: unknown): unknown {
  const node = Array.isArray(cur) ? cur[0] : cur;
  if (node === undefined) return ABSENT;
  if (node && typeof node === 'object') {
    const keys = Object.keys(node);
    if (keys.length === 1 && keys[0] === '#text') return String((node as Record<string, unknown>)['#text']);
    return node;
  }
  return node === null ? '' : String(node);
}

/**
 * Why `path` finds nothing in `doc`, in words: the answer is another document (`the answer is
 * <Error> (NoSuchBucket)`), the body is empty, or the element a step of the path names is missing.
 */
export function whatIsThere(doc: unknown, path: string): string | undefined {
  if (!doc || typeof doc !== 'object') return undefined;
  const roots = Object.keys(doc).filter((k) => !k.startsWith('#') && !k.startsWith('?'));
  if (roots.length === 0) return 'the body is empty';
  const segments = path.split('/').filter((s) => s !== '');
  if (segments[0] === '*') segments[0] = roots[0];
  const rooted = asRoot(doc, segments[0]) as Record<string, unknown>;
  if (segments.length === 0 || segments[0] in rooted) {
    // The root is the one named: the first element of the path it lacks.
    for (let i = 1; i < segments.length; i++) {
      if (segments[i] === '*' || /^\d+$/.test(segments[i]) || segments[i].startsWith('@')) return undefined;
      if (getXmlPath(doc, `/${segments.slice(0, i + 1).join('/')}`) === ABSENT)
        return `<${segments[i - 1]}> has no <${segments[i]}>`;
    }
    return undefined;
  }
  const root = roots[0];
  if (root === 'Error') {
    const code = getXmlPath(doc, '/Error/Code');
    return `the answer is <Error> (${typeof code === 'string' && code.trim() ? code : 'no <Code>'})`;
  }
  return `the answer is <${root}>`;
}
