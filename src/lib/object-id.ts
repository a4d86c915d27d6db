import { randomBytes } from 'node:crypto';

/** MongoDB ObjectId layout: 4-byte seconds, 5 random bytes fixed per process, 3-byte counter. */
const processRandom = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

export const OBJECT_ID = /^[0-9a-f]{24}$/;

export function newObjectId(now = Date.now()): string {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  processRandom.copy(buf, 4);
  counter = (counter + 1) & 0xffffff;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}
