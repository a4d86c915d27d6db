import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPrivateAddress, parseIPv4, RefusedTarget, resolveTarget } from '../../src/lib/outbound.ts';

/** Every spelling of a loopback, private, link-local, unique-local, unspecified, multicast or reserved address. */
const REFUSED = [
  // IPv4, dotted
  '127.0.0.1',
  '127.255.255.254',
  '10.0.0.1',
  '172.16.5.4',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '192.0.0.8',
  '192.0.2.1',
  '198.18.0.1',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv4, decimal, hex, octal, short and mixed
  '2130706433',
  '0x7f000001',
  '0x7f.1',
  '0x7f.0.0.1',
  '127.1',
  '127.0.1',
  '0177.0.0.1',
  '0177.1',
  '017700000001',
  '0',
  '0x0',
  '167772161',
  '0xa.0.0.1',
  '3232235777',
  '0xa9fea9fe',
  '127.0.0.1.',
  // IPv6 loopback, unspecified, unique-local, link-local, site-local, multicast, documentation
  '::1',
  '[::1]',
  '::',
  '0:0:0:0:0:0:0:1',
  'fc00::1',
  'fd12:3456:789a::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'ff02::1',
  'ff05::1:3',
  '2001:db8::1',
  '2001::1',
  '100::1',
  '3fff::1',
  // IPv4-mapped, -compatible, -translated
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::FFFF:10.0.0.1',
  '0:0:0:0:0:ffff:7f00:1',
  '::ffff:169.254.169.254',
  '::127.0.0.1',
  '::7f00:1',
  '::10.0.0.1',
  '::ffff:0:7f00:1',
  '::ffff:0:127.0.0.1',
  // NAT64 and 6to4 around a private IPv4
  '64:ff9b::127.0.0.1',
  '64:ff9b::7f00:1',
  '64:ff9b::a00:1',
  '64:ff9b:1::8.8.8.8',
  '2002:7f00:1::',
  '2002:7f00:0001::1',
  '2002:a00:1::',
  '2002:c0a8:101::1',
  '2002:a9fe:a9fe::',
  // not addresses at all
  'localhost',
  '',
  'not an address',
];

const ALLOWED = [
  '8.8.8.8',
  '93.184.215.14',
  '1.1.1.1',
  '134744072', // 8.8.8.8 as one number
  '0x08080808',
  '172.32.0.1',
  '192.169.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '[2001:4860:4860::8888]',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

test('isPrivateAddress: every spelling of a loopback, private, link-local, unique-local or reserved address is refused', () => {
  for (const address of REFUSED) assert.equal(isPrivateAddress(address), true, address);
});

test('isPrivateAddress: public addresses pass, whatever their spelling', () => {
  for (const address of ALLOWED) assert.equal(isPrivateAddress(address), false, address);
});

test('parseIPv4 reads what a resolver reads: decimal, hex, octal, 1–4 parts; anything else is not a number', () => {
  const table: [string, string | undefined][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.01', '127.0.0.1'],
    ['10.0x10000', '10.1.0.0'],
    ['4294967295', '255.255.255.255'],
    ['4294967296', undefined],
    ['256.0.0.1', undefined],
    ['1.2.3.4.5', undefined],
    ['08.0.0.1', undefined],
    ['example.com', undefined],
    ['1.2.3.x', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of table) assert.equal(parseIPv4(text), expected, text);
});

test('resolveTarget: an address in any spelling is judged without DNS; a name by every address it resolves to', async () => {
  for (const host of ['2130706433', '0x7f.1', '[::ffff:0:7f00:1]', '2002:7f00:1::', 'localhost']) {
    await assert.rejects(resolveTarget(host, false), (e: unknown) => e instanceof RefusedTarget && e.reason === 'private_address', host);
  }
  assert.deepEqual(await resolveTarget('127.1', true), { address: '127.0.0.1', family: 4 }, 'allowed: the address to connect to');
  assert.deepEqual(await resolveTarget('8.8.8.8', false), { address: '8.8.8.8', family: 4 });
  assert.deepEqual(await resolveTarget('[2606:4700:4700::1111]', false), { address: '2606:4700:4700::1111', family: 6 });
  await assert.rejects(resolveTarget('no-such-host.invalid', false), (e: unknown) => e instanceof RefusedTarget && e.reason === 'unresolved');
});

test('ALLOW_PRIVATE_TARGETS lifts the rule for webhooks and feeds; WEBHOOK_ALLOW_PRIVATE is its alias; the new name wins', async () => {
  const { loadConfig } = await import('../../src/config.ts');
  const base = { DATA_DIR: '/nonexistent-not-written', JWT_SECRET: 'j'.repeat(32), SECRET_KEY: 'a'.repeat(64) };
  const allow = (env: Record<string, string>) => {
    const c = loadConfig({ ...base, ...env });
    assert.equal(c.webhooks.allowPrivate, c.allowPrivateTargets);
    return c.allowPrivateTargets;
  };
  assert.equal(allow({}), false);
  assert.equal(allow({ ALLOW_PRIVATE_TARGETS: 'true' }), true);
  assert.equal(allow({ WEBHOOK_ALLOW_PRIVATE: 'true' }), true);
  assert.equal(allow({ ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' }), false);
  assert.throws(() => loadConfig({ ...base, SSE_MAX_STREAMS: '0' }), /SSE_MAX_STREAMS/);
  assert.throws(() => loadConfig({ ...base, INVENTORY_MAX_ROWS: 'many' }), /INVENTORY_MAX_ROWS/);
});
