/** The kinds of file POST /media keeps, told apart by their first bytes (never by the name or the declared type). */
export type MediaKind = 'png' | 'jpg' | 'webp' | 'pdf' | 'svg';

export const CONTENT_TYPES: Record<MediaKind, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  pdf: 'application/pdf',
  svg: 'image/svg+xml',
};

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const startsWith = (head: Buffer, bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

/**
 * The binary kinds by signature; `svg-candidate` for text that opens like XML (the sanitiser decides whether it
 * really is an SVG); undefined for anything else.
 */
export function sniff(head: Buffer): Exclude<MediaKind, 'svg'> | 'svg-candidate' | undefined {
  if (startsWith(head, PNG)) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpg';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBPVP8'), 8)) return 'webp';
  if (startsWith(head, ascii('%PDF-'))) return 'pdf';
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (/^\s*</.test(text) && !text.includes('\u0000')) return 'svg-candidate';
  return undefined;
}
