import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { Renderer, Tokens } from 'marked';

/** Where the rendered guides live: `/docs/guides` is the index, `/docs/guides/<name>` a guide (docs/<name>.md). */
export const GUIDES_PATH = '/docs/guides';

export interface GuidePage {
  title: string;
  html: string;
}

export interface RenderedGuides {
  /** By name (the file name without `.md`). */
  pages: Map<string, GuidePage>;
  index: GuidePage;
  /** The Content-Security-Policy of every page: nothing but the one inline stylesheet and same-origin images. */
  csp: string;
}

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;color:#1d2329;max-width:52rem;margin:0 auto;padding:1rem 1.25rem 4rem}
nav{font-size:.9rem;padding:.5rem 0;border-bottom:1px solid #dde1e5;margin-bottom:1rem}nav a{margin-right:1rem}
a{color:#0b5cad}h1,h2,h3{line-height:1.25}h2{margin-top:2rem;border-bottom:1px solid #eef0f2;padding-bottom:.2rem}
code{font:.88em/1.4 ui-monospace,monospace;background:#f3f4f6;padding:.1em .3em;border-radius:3px}
pre{background:#f3f4f6;padding:.75rem;overflow-x:auto;border-radius:4px}pre code{background:none;padding:0}
table{border-collapse:collapse;display:block;overflow-x:auto;margin:1rem 0}th,td{border:1px solid #dde1e5;padding:.3rem .5rem;text-align:left;vertical-align:top}
blockquote{margin:1rem 0;padding:0 1rem;border-left:3px solid #dde1e5;color:#4a545e}dt{font-weight:600}`;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };
const unescape = (s: string) =>
  s.replace(/&(#\d+|amp|lt|gt|quot);/g, (_, e: string) => (e.startsWith('#') ? String.fromCharCode(Number(e.slice(1))) : (ENTITIES[e] ?? '')));

/** GitHub's heading anchors, so links written for the repository (`inventory.md#measured`) land on the same heading. */
export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/**
 * Where a guide's link points once served. Another guide (`errors.md`, `./inventory.md#measured`) → its page;
 * an anchor of the same page, an http(s) or mailto address, or a path of this server (`/openapi.json`) → kept;
 * anything else (a file of the repository that is not a guide, such as `../README.md`, or another scheme) →
 * undefined: the link's text stays, as text.
 */
export function guideHref(href: string, names: ReadonlySet<string>): string | undefined {
  if (href.startsWith('#')) return href;
  if (/^(https:|http:|mailto:)/i.test(href)) return href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return undefined;
  if (href.startsWith('/')) return href;
  const [path = '', fragment] = href.split('#', 2);
  const resolved = posix.normalize(posix.join('docs', path));
  const name = /^docs\/([a-z0-9-]+)\.md$/.exec(resolved)?.[1];
  if (name === undefined || !names.has(name)) return undefined;
  return `${GUIDES_PATH}/${name}${fragment ? `#${fragment}` : ''}`;
}

/**
 * docs/*.md rendered to HTML once. Raw HTML in the Markdown is shown as text, never passed through; links are
 * rewritten by guideHref; images become their alt text (the guides have none, and the policy allows no other
 * origin). Headings get GitHub's anchors.
 */
export async function renderGuides(docsDir: string): Promise<RenderedGuides> {
  const { Marked, TextRenderer } = await import('marked');
  const files = readdirSync(docsDir)
    .filter((f) => /^[a-z0-9-]+\.md$/.test(f))
    .sort();
  const names = new Set(files.map((f) => f.slice(0, -3)));
  const plain = new TextRenderer();
  let seen = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escape(text),
      image: ({ text }: Tokens.Image) => escape(text),
      heading(this: Renderer, { tokens, depth }: Tokens.Heading) {
        const slug = slugOf(unescape(this.parser.parseInline(tokens, plain)));
        const n = seen.get(slug) ?? 0;
        seen.set(slug, n + 1);
        return `<h${depth} id="${escape(n ? `${slug}-${n}` : slug)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link(this: Renderer, token: Tokens.Link) {
        const inner = this.parser.parseInline(token.tokens);
        const href = guideHref(token.href, names);
        if (href === undefined) return inner;
        const external = /^https?:/i.test(href) ? ' rel="noopener noreferrer"' : '';
        return `<a href="${escape(href)}"${token.title ? ` title="${escape(token.title)}"` : ''}${external}>${inner}</a>`;
      },
    },
  });
  const pages = new Map<string, GuidePage>();
  const summaries: { name: string; title: string; summary: string }[] = [];
  for (const file of files) {
    const name = file.slice(0, -3);
    const source = readFileSync(join(docsDir, file), 'utf8');
    seen = new Map();
    const body = await marked.parse(source);
    const title = /^# (.+)$/m.exec(source)?.[1]?.replace(/`/g, '').trim() ?? name;
    pages.set(name, { title, html: page(title, body) });
    summaries.push({ name, title, summary: firstParagraph(source) });
  }
  const list = summaries
    .map(({ name, title, summary }) => `<dt><a href="${GUIDES_PATH}/${name}">${escape(title)}</a></dt><dd>${escape(summary)}</dd>`)
    .join('\n');
  const index = page(
    'Guides',
    `<h1>Showsuite guides</h1>\n<p>How the service behaves, in more words than the <a href="/docs">API reference</a> has room for. ` +
      `The machine-readable interface is the <a href="/openapi.json">OpenAPI document</a>.</p>\n<dl>\n${list}\n</dl>\n`,
  );
  const hash = createHash('sha256').update(STYLE).digest('base64');
  return {
    pages,
    index: { title: 'Guides', html: index },
    csp: `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}

/** The first paragraph after the title, as plain text, for the index (Markdown marks dropped). */
function firstParagraph(source: string): string {
  const para = source.split(/\n\s*\n/).find((p) => p.trim() && !p.startsWith('#')) ?? '';
  const text = para
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 240 ? `${text.slice(0, 239).replace(/\s\S*$/, '')} …` : text;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Showsuite</title>
<style>${STYLE}</style>
</head>
<body>
<nav><a href="${GUIDES_PATH}">Guides</a><a href="/docs">API reference</a><a href="/openapi.json">OpenAPI document</a></nav>
<main>
${body}</main>
</body>
</html>
`;
}
