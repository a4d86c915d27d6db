import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for write-only secrets at rest. Output: base64url(iv | tag | ciphertext), prefixed with a version.
 * Seals with `key`; opens with `key`, then with `previous` (the key being retired during a key change), so values
 * sealed before the change stay readable until they are written again.
 */
export class SecretBox {
  constructor(
    private readonly key: Buffer,
    private readonly previous?: Buffer,
  ) {
    if (key.length !== 32 || (previous !== undefined && previous.length !== 32)) throw new Error('SecretBox needs 32-byte keys');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return 'v1.' + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    if (this.previous === undefined) return openWith(this.key, raw);
    try {
      return openWith(this.key, raw);
    } catch {
      return openWith(this.previous, raw);
    }
  }

  /** During a key change: `sealed` sealed again under the new key when it was sealed under the retiring one, else undefined. */
  reseal(sealed: string): string | undefined {
    if (this.previous === undefined || !sealed.startsWith('v1.')) return undefined;
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    try {
      openWith(this.key, raw);
      return undefined;
    } catch {
      return this.seal(openWith(this.previous, raw));
    }
  }
}

function openWith(key: Buffer, raw: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
