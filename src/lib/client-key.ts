import { isIP } from 'node:net';
import { ipv6Bytes } from './outbound.ts';

/** An IPv4 address as itself (mapped forms unwrapped); an IPv6 address by its /64. */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIP(address) !== 6) return address;
  const b = ipv6Bytes(address);
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push((((b[i] ?? 0) << 8) | (b[i + 1] ?? 0)).toString(16));
  return `${groups.join(':')}::/64`;
}
