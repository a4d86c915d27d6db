import { posix } from 'node:path';
import { isIP } from 'node:net';
import { Writable } from 'node:stream';
import { commonJs } from '../../lib/cjs.ts';
import { RefusedTarget, resolveTarget } from '../../lib/outbound.ts';

/** Why a pull failed, in words a sales team can act on. */
export type FeedFailure = 'unreachable' | 'private_address' | 'login_refused' | 'file_missing' | 'too_large' | 'misconfigured' | 'failed';

export class FeedError extends Error {
  constructor(
    readonly reason: FeedFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface FeedSettings {
  ftpUrl?: unknown;
  ftpPort?: unknown;
  ftpPath?: unknown;
  ftpFileName?: unknown;
}

export interface FeedCredentials {
  username: string | undefined;
  password: string | undefined;
}

export interface FeedTarget {
  protocol: 'ftp' | 'ftps' | 'sftp';
  host: string;
  port: number;
  path: string;
  /** Where, without credentials: safe to show and to log. */
  display: string;
}

const DEFAULT_PORT = { ftp: 21, ftps: 21, sftp: 22 } as const;

/**
 * Where the project's feed file is: `ftpUrl` is a host name (plain FTP) or an ftp://, ftps:// (explicit TLS) or
 * sftp:// URL; `ftpPort` overrides its port; the file is `ftpPath` (folder) + `ftpFileName`, or the URL's path.
 * Credentials never come from the URL (it is a readable field): only from the sealed ftpUsername/ftpPassword.
 */
export function feedTarget(s: FeedSettings): FeedTarget {
  const raw = typeof s.ftpUrl === 'string' ? s.ftpUrl.trim() : '';
  if (!raw) throw new FeedError('misconfigured', 'The project has no ftpUrl');
  let url: URL;
  try {
    url = new URL(raw.includes('://') ? raw : `ftp://${raw}`);
  } catch {
    throw new FeedError('misconfigured', 'ftpUrl is neither a host name nor an ftp://, ftps:// or sftp:// URL');
  }
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== 'ftp' && protocol !== 'ftps' && protocol !== 'sftp')
    throw new FeedError('misconfigured', `ftpUrl must use ftp, ftps or sftp, not ${protocol}`);
  const port = typeof s.ftpPort === 'number' && s.ftpPort > 0 ? s.ftpPort : url.port ? Number(url.port) : DEFAULT_PORT[protocol];
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new FeedError('misconfigured', 'ftpPort must be a port number (1–65535)');
  const urlPath = decodeURIComponent(url.pathname);
  const folder = typeof s.ftpPath === 'string' && s.ftpPath.trim() ? s.ftpPath.trim() : '';
  const file = typeof s.ftpFileName === 'string' && s.ftpFileName.trim() ? s.ftpFileName.trim() : '';
  let path: string;
  if (file) path = posix.join(folder || (urlPath !== '/' ? urlPath : ''), file);
  else if (urlPath && urlPath !== '/' && !urlPath.endsWith('/')) path = urlPath;
  else throw new FeedError('misconfigured', 'Set ftpFileName (and ftpPath for its folder) to name the feed file');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { protocol, host, port, path, display: `${protocol}://${url.host.replace(/:\d+$/, '')}:${port}${path.startsWith('/') ? '' : '/'}${path}` };
}

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Extra certificate authorities (PEM) trusted for ftps, besides the system ones. */
  ca?: string | undefined;
  /** Let the feed reach loopback and private addresses (ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
}

/** Downloads the feed file. Every failure is a FeedError naming what failed, never carrying a credential. */
export async function fetchFeedFile(target: FeedTarget, creds: FeedCredentials, opts: FetchOptions): Promise<Buffer> {
  // Resolved and checked once; the clients connect to that address (a private one is refused before any packet).
  const address = await feedAddress(target, opts.allowPrivate);
  return target.protocol === 'sftp' ? fetchSftp(target, address, creds, opts) : fetchFtp(target, address, creds, opts);
}

/** The address a feed connects to, or a FeedError naming why there is none. */
export async function feedAddress(target: Pick<FeedTarget, 'host' | 'display'>, allowPrivate: boolean): Promise<string> {
  try {
    return (await resolveTarget(target.host, allowPrivate)).address;
  } catch (err) {
    if (!(err instanceof RefusedTarget)) throw err;
    if (err.reason === 'private_address') throw new FeedError('private_address', `Refused ${target.display}: ${err.message}`);
    throw new FeedError('unreachable', `Could not reach ${target.display} (${err.message})`);
  }
}

/**
 * The host of an ftpUrl as a feed would read it (a bare host name or an ftp://, ftps:// or sftp:// URL), or
 * undefined when the value is not one: the settings' check of where a feed may point.
 */
export function feedHost(ftpUrl: string): string | undefined {
  const raw = ftpUrl.trim();
  if (!raw) return undefined;
  try {
    return new URL(raw.includes('://') ? raw : `ftp://${raw}`).hostname.replace(/^\[|\]$/g, '') || undefined;
  } catch {
    return undefined;
  }
}

async function fetchFtp(target: FeedTarget, address: string, creds: FeedCredentials, opts: FetchOptions): Promise<Buffer> {
  // The FTP and SFTP clients (ssh2 among them) load on a feed's first pull, not at every start.
  const { Client: FtpClient } = commonJs(await import('basic-ftp'));
  // Data connections go to the control connection's address (checked above), whatever a PASV answer names.
  const client = new FtpClient(opts.timeoutMs, { allowSeparateTransferHost: false });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    await step(target, 'connect', () =>
      client.access({
        host: address,
        port: target.port,
        user: creds.username ?? 'anonymous',
        password: creds.password ?? '',
        secure: target.protocol === 'ftps',
        // The certificate is checked against the name in ftpUrl, not the address connected to.
        ...(target.protocol === 'ftps'
          ? {
              secureOptions: {
                host: target.host,
                ...(isIP(target.host) ? {} : { servername: target.host }),
                ...(opts.ca ? { ca: opts.ca } : {}),
              },
            }
          : {}),
      }),
    );
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > opts.maxBytes) {
          done(tooLarge(target, opts.maxBytes));
          return;
        }
        chunks.push(chunk);
        done();
      },
    });
    await step(target, 'download', () => client.downloadTo(sink, target.path));
    return Buffer.concat(chunks);
  } finally {
    client.close();
  }
}

async function fetchSftp(target: FeedTarget, address: string, creds: FeedCredentials, opts: FetchOptions): Promise<Buffer> {
  const { default: SftpClient } = await import('ssh2-sftp-client');
  const client = new SftpClient();
  let connected = false;
  try {
    await step(target, 'connect', () =>
      client.connect({
        host: address,
        port: target.port,
        username: creds.username ?? '',
        password: creds.password ?? '',
        readyTimeout: opts.timeoutMs,
        retries: 0,
      }),
    );
    connected = true;
    return await step(target, 'download', async () => {
      const stat = await client.stat(target.path);
      if (stat.size > opts.maxBytes) throw tooLarge(target, opts.maxBytes);
      const data = await client.get(target.path);
      return Buffer.isBuffer(data) ? data : Buffer.from(typeof data === 'string' ? data : '');
    });
  } finally {
    if (connected) await client.end().catch(() => undefined);
  }
}

/** One stage of a pull: a library's error becomes a FeedError naming what failed (ours pass through). */
async function step<T>(target: FeedTarget, stage: 'connect' | 'download', run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof FeedError ? err : classify(err, target, stage);
  }
}

const tooLarge = (target: FeedTarget, maxBytes: number) => new FeedError('too_large', `The feed file at ${target.display} is larger than ${maxBytes} bytes`);

const NETWORK = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE']);

/** A library error → what failed. Messages are ours: a server's reply text never reaches the client. */
function classify(err: unknown, target: FeedTarget, stage: 'connect' | 'download'): FeedError {
  const e = err as { code?: unknown; message?: string; level?: string };
  const message = e.message ?? '';
  const code = e.code;
  if (stage === 'connect') {
    if (code === 530 || code === 430 || e.level === 'client-authentication' || /authentication methods failed|login incorrect|auth/i.test(message)) {
      return new FeedError('login_refused', `The server at ${target.display} refused the login (check ftpUsername and ftpPassword)`);
    }
    if (/certificate|self[- ]signed|TLS|SSL/i.test(message) || (typeof code === 'string' && /CERT|TLS|SSL/.test(code))) {
      return new FeedError('unreachable', `No trusted TLS connection to ${target.display} (the server's certificate is not trusted)`);
    }
    const net = typeof code === 'string' && NETWORK.has(code) ? code : /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|timed? ?out/i.exec(message)?.[0];
    return new FeedError('unreachable', `Could not reach ${target.display}${net ? ` (${net})` : ''}`);
  }
  if (code === 550 || code === 551 || code === 450 || code === 2 || code === 'ENOENT' || /no such file|not found/i.test(message)) {
    return new FeedError('file_missing', `There is no file at ${target.display}`);
  }
  if (typeof code === 'string' && NETWORK.has(code)) return new FeedError('unreachable', `The connection to ${target.display} was lost (${code})`);
  return new FeedError('failed', `Reading ${target.display} failed${typeof code === 'number' ? ` (FTP ${code})` : ''}`);
}
