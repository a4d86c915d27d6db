/**
 * The fields of the interface description (test/support/interface-description.md, kept in the repository so the
 * checks run wherever it does), and where in our code a field's name is read.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');
export const SPEC_FILE = join(ROOT, 'test/support/interface-description.md');

const NAME = /^_?[A-Za-z_][A-Za-z0-9_]*$/;

/** The names a field cell or a field-list clause starts with: `a, b` → a, b; `colours colorBase` → colorBase. */
function namesOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/\([^)]*\)/g, '').split(/[,;]|\.(?:\s|$)/)) {
    const piece = raw
      .replace(/^\s*Also:\s*/, '')
      .replace(/^\s*(colours|styles)\s+/, '')
      .trim();
    const name = /^`([^`]+)`/.exec(piece)?.[1] ?? piece.split(/\s+/)[0] ?? '';
    if (NAME.test(name)) out.push(name);
  }
  return out;
}

/**
 * Resource → its fields, as the interface description's "Resources and their fields" lists them: the first column of each table,
 * and for the Project the names of its field-list paragraphs ("Text fields (string): a, b (meaning), …").
 */
export function specFields(text = readFileSync(SPEC_FILE, 'utf8')): Map<string, string[]> {
  const section = text.split(/^## Resources and their fields$/m)[1]?.split(/^## /m)[0] ?? '';
  const out = new Map<string, string[]>();
  for (const block of section.split(/^### /m).slice(1)) {
    const [heading = '', ...lines] = block.split('\n');
    const resource = heading.split(/\s/)[0] ?? '';
    const fields = new Set<string>();
    let inGaps = false;
    for (const line of lines) {
      if (/^Gaps:/.test(line)) inGaps = true;
      if (inGaps) continue;
      const row = /^\|([^|]+)\|/.exec(line);
      if (row) {
        const cell = (row[1] ?? '').trim();
        if (cell === 'Field' || /^-+$/.test(cell)) continue;
        for (const n of namesOf(cell)) fields.add(n);
        continue;
      }
      // A field-list paragraph: "Label (note): names…"; a paragraph ending in a colon introduces a table.
      const list = /^[A-Z][^:]*:\s*(.+)$/.exec(line);
      if (list?.[1]) for (const n of namesOf(list[1])) fields.add(n);
    }
    if (fields.size) out.set(resource, [...fields]);
  }
  return out;
}

/** Where a field acts, as docs/fields.md names it. */
export const PLACES = ['page', 'group page', 'mail', 'service', 'console', 'integration credential', 'withheld', 'stored, not yet acting'] as const;
export type Place = (typeof PLACES)[number];

/** The code that makes each acting place: a field listed there must be read in one of these files. */
export const CODE_OF: Record<'page' | 'group page' | 'mail' | 'service' | 'console', (file: string) => boolean> = {
  // The buyer's page: its script (web/, not the console) and what the server renders and bundles for it.
  page: (f) => (f.startsWith('web/') && !f.startsWith('web/admin/')) || f.startsWith('src/presentation/') || f.startsWith('src/public/'),
  'group page': (f) => f.startsWith('src/presentation/'),
  mail: (f) => f.startsWith('src/mail/') || /mail/i.test(f.split('/').pop() ?? ''),
  service: (f) => f.startsWith('src/'),
  // The sales team's console: its screens (what it shows the team and lets them edit).
  console: (f) => f.startsWith('web/admin/'),
};

/**
 * Files that declare fields rather than read them: TypeBox schemas, type declarations, the words describing fields,
 * the demo data (it writes values). A name found only there is read by nothing.
 */
const DECLARES = (f: string) =>
  /\.schemas\.ts$|\.d\.ts$/.test(f) || f === 'web/types.ts' || f === 'src/modules/shared/described.ts' || f.startsWith('src/seed/') || f.startsWith('src/db/');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Comments out: a comment naming a field reads nothing. (`//` only after a space or at a line's start, so `https://` stays.) */
const uncommented = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|\s)\/\/.*$/gm, '$1');

/** Our code that may read fields: path relative to the repository → its text without comments. */
export function readingCode(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of [...sources('src'), ...sources('web')]) {
    const rel = relative(ROOT, join(ROOT, file)).split('\\').join('/');
    if (!DECLARES(rel)) out.set(rel, uncommented(readFileSync(join(ROOT, rel), 'utf8')));
  }
  return out;
}

/** The files of `code` in which `name` appears as a whole identifier (a property access, a key, a string, a destructured name). */
export function filesReading(code: Map<string, string>, name: string, where: (file: string) => boolean): string[] {
  const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`);
  return [...code].filter(([file, text]) => where(file) && word.test(text)).map(([file]) => file);
}
