import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The one guard for every connection a project's settings point somewhere (webhooks, FTP/FTPS/SFTP feeds): the
 * host is resolved once, every address it resolves to must be public, and the caller connects to exactly the
 * address returned — so a name that answers a public address for the check and a private one for the connection
 * (DNS rebinding) cannot slip through, and a private target is refused before any packet is sent (the same
 * answer, at once, whether the port there is open, closed or silent).
 */

/** IPv4 ranges no project setting may reach: this network, private, shared, loopback, link-local, reserved. */
const PRIVATE_V4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE_V4.addSubnet(net, bits, 'ipv4');

/** IPv6 outside global unicast (2000::/3) is refused anyway; these are the special blocks inside it. */
const SPECIAL_V6 = new BlockList();
for (const [net, bits] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const)
  SPECIAL_V6.addSubnet(net, bits, 'ipv6');

/**
 * An IPv4 address in any spelling `inet_aton` accepts (what a resolver does with a numeric host): one to four
 * parts, each decimal, hex (`0x7f`) or octal (`0177`), the last filling the remaining bytes — `2130706433`,
 * `0x7f.1`, `127.1`, `0177.0.0.01` are all 127.0.0.1. Undefined when the text is not such a number.
 */
export function parseIPv4(text: string): string | undefined {
  const parts = text.split('.');
  // One trailing dot (a fully qualified spelling) is allowed.
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  if (parts.length > 4) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    if (/^0x[0-9a-f]*$/i.test(p)) nums.push(p.length === 2 ? 0 : parseInt(p.slice(2), 16));
    else if (/^0[0-7]+$/.test(p)) nums.push(parseInt(p, 8));
    else if (/^(0|[1-9][0-9]*)$/.test(p)) nums.push(Number(p));
    else return undefined;
  }
  const last = nums.pop();
  if (last === undefined || nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return undefined;
  let value = last;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The 16 bytes of a valid IPv6 address (zone dropped, a dotted IPv4 tail read as its 4 bytes). */
export function ipv6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] && dotted[2]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[2].split('.').map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 255];
  });
}

const v4Of = (bytes: number[], at: number) => bytes.slice(at, at + 4).join('.');
const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * Whether an address is one no project setting may reach. IPv6 forms that carry an IPv4 address are judged by
 * that address: IPv4-compatible `::a.b.c.d` (and `::`, `::1`), IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`. Anything that is not an address counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '');
  const v4 = parseIPv4(host);
  if (v4 !== undefined) return PRIVATE_V4.check(v4, 'ipv4');
  if (isIP(host) !== 6) return true;
  const b = ipv6Bytes(host);
  if (zero(b, 0, 12)) return PRIVATE_V4.check(v4Of(b, 12), 'ipv4');
  if (zero(b, 0, 10) && b[10] === 255 && b[11] === 255) return PRIVATE_V4.check(v4Of(b, 12), 'ipv4');
  if (zero(b, 0, 8) && b[8] === 255 && b[9] === 255 && zero(b, 10, 12)) return PRIVATE_V4.check(v4Of(b, 12), 'ipv4');
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for local use only.
    return zero(b, 4, 12) ? PRIVATE_V4.check(v4Of(b, 12), 'ipv4') : true;
  }
  if (b[0] === 0x20 && b[1] === 0x02) return PRIVATE_V4.check(v4Of(b, 2), 'ipv4');
  // Only global unicast (2000::/3) is reachable; loopback, unique-local, link-local, multicast and the rest are not.
  if (((b[0] ?? 0) & 0xe0) !== 0x20) return true;
  return SPECIAL_V6.check(host.replace(/%.*$/, ''), 'ipv6');
}

/** Why a target was refused: it is (or resolves to) a private address, or its name does not resolve. */
export class RefusedTarget extends Error {
  constructor(
    readonly reason: 'private_address' | 'unresolved',
    message: string,
  ) {
    super(message);
  }
}

export interface ResolvedTarget {
  /** The address to connect to: the one that was checked. */
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host once (an address in any spelling is read without asking DNS) and refuses it when any address
 * it resolves to is private, unless `allowPrivate`. Connect to the `address` returned, never to the name again.
 */
export async function resolveTarget(host: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const bare = host.replace(/^\[|\]$/g, '');
  const v4 = parseIPv4(bare);
  let addresses: ResolvedTarget[];
  if (v4 !== undefined) addresses = [{ address: v4, family: 4 }];
  else if (isIP(bare) === 6) addresses = [{ address: bare, family: 6 }];
  else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } catch (err) {
      throw new RefusedTarget('unresolved', `${host} does not resolve (${(err as { code?: string }).code ?? 'no address'})`);
    }
  }
  const first = addresses[0];
  if (!first) throw new RefusedTarget('unresolved', `${host} has no address`);
  if (!allowPrivate) {
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) {
      const what = bad.address === bare ? `${host} is` : `${host} resolves to ${bad.address},`;
      throw new RefusedTarget('private_address', `${what} a loopback or private address, which project settings may not reach`);
    }
  }
  return first;
}

/** The host of an http(s) address (IPv6 without its brackets), or undefined when it is not one. */
export function webHost(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim());
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return parsed.hostname.replace(/^\[|\]$/g, '') || undefined;
  } catch {
    return undefined;
  }
}
