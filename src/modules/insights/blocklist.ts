import { BlockList, isIP } from 'node:net';
import { ipv6Bytes, parseIPv4 } from '../../lib/outbound.ts';

/**
 * A project's `eventsBlockList`, read: comma-separated client addresses, CIDR ranges (IPv4 or IPv6) and e-mail
 * patterns (`*` matches any run of characters, so `*@example.com` is a whole domain). Entries that are none of
 * these are ignored.
 */
export class EventsBlockList {
  readonly #addresses = new BlockList();
  readonly #emails: RegExp[] = [];
  readonly #emailEntries: string[] = [];
  #hasAddresses = false;

  constructor(text: unknown) {
    if (typeof text !== 'string') return;
    for (const raw of text.split(/[,\s]+/)) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry.includes('@')) {
        this.#emails.push(emailPattern(entry));
        this.#emailEntries.push(entry);
      } else this.#addAddress(entry);
    }
  }

  /** The entries of `text` that are none of an address, a CIDR range or an e-mail pattern (what a save refuses). */
  static unreadable(text: string): string[] {
    const bad: string[] = [];
    for (const raw of text.split(/[,\s]+/)) {
      const entry = raw.trim();
      if (!entry) continue;
      const one = new EventsBlockList(entry);
      if (one.empty || (entry.includes('@') && !/^[^@\s]+@[^@\s]+$/.test(entry))) bad.push(entry);
    }
    return bad;
  }

  get empty(): boolean {
    return !this.#hasAddresses && this.#emails.length === 0;
  }

  #addAddress(entry: string) {
    const [host = '', bitsText] = entry.split('/');
    const address = normalise(host);
    if (!address) return;
    const max = address.family === 'ipv4' ? 32 : 128;
    const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
    if (!(bits >= 0 && bits <= max)) return;
    this.#addresses.addSubnet(address.address, bits, address.family);
    this.#hasAddresses = true;
  }

  /** Whether a client address is listed (an IPv4-mapped IPv6 address is read as its IPv4 address). */
  hasAddress(client: string | undefined): boolean {
    if (!this.#hasAddresses || !client) return false;
    const address = normalise(client);
    return address !== undefined && this.#addresses.check(address.address, address.family);
  }

  hasEmail(email: unknown): boolean {
    return typeof email === 'string' && this.#emails.some((p) => p.test(email.trim().toLowerCase()));
  }

  /** The e-mail patterns as SQL `like` patterns (for leaving leads out where they are counted). */
  get likePatterns(): string[] {
    return this.#emailEntries.map((e) => e.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%'));
  }
}

function emailPattern(entry: string): RegExp {
  const escaped = entry.replace(/[.+?^${}()|[\]\\%_]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

function normalise(text: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const bare = text.replace(/^\[|\]$/g, '');
  const v4 = /^[0-9.]+$/.test(bare) ? parseIPv4(bare) : undefined;
  if (v4) return { address: v4, family: 'ipv4' };
  if (isIP(bare) !== 6) return undefined;
  const b = ipv6Bytes(bare);
  // ::ffff:a.b.c.d is how a dual-stack socket reports an IPv4 client.
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 255 && b[11] === 255) return { address: b.slice(12).join('.'), family: 'ipv4' };
  return { address: bare.replace(/%.*$/, ''), family: 'ipv6' };
}
