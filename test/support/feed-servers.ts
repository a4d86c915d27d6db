import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join, posix } from 'node:path';
import { FtpSrv } from 'ftp-srv';
import ssh2 from 'ssh2';
import { tempDir } from '../helpers.ts';

/** Where a test server keeps its files: `put('feeds/inventory.csv', text)` writes one. */
export interface FileRoot {
  root: string;
  put(path: string, content: string | Buffer): void;
}

function fileRoot(): FileRoot {
  const root = tempDir('showsuite-feed-');
  return {
    root,
    put(path, content) {
      const file = join(root, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    },
  };
}

const quiet = { child: () => quiet, info() {}, debug() {}, trace() {}, warn() {}, error() {}, fatal() {} };

/** A self-signed certificate for 127.0.0.1 made by Debian's openssl, for the FTPS server. */
export function selfSignedCert(): { key: string; cert: string; certFile: string } {
  const dir = tempDir('showsuite-tls-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

/** A real FTP server (the ftp-srv package) on a free port; with `tls`, it offers explicit FTPS (AUTH TLS). */
export async function startFtpServer(opts: { username: string; password: string; tls?: { key: string; cert: string } }) {
  const files = fileRoot();
  const logins: string[] = [];
  const server = new FtpSrv({
    url: 'ftp://127.0.0.1:0',
    pasv_url: '127.0.0.1',
    pasv_min: 41000,
    pasv_max: 41999,
    anonymous: false,
    greeting: 'test feed',
    log: quiet,
    ...(opts.tls ? { tls: { key: opts.tls.key, cert: opts.tls.cert } } : {}),
  });
  server.on('login', ({ username, password }, resolve, reject) => {
    logins.push(username);
    if (username === opts.username && password === opts.password) resolve({ root: files.root });
    else reject(new Error('Login incorrect'));
  });
  await server.listen();
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return { ...files, port, logins, close: () => server.close() };
}

/**
 * A new ed25519 host key. ssh2 writes a key whose public half starts with a zero byte one byte short, and then
 * cannot read it back ("Malformed OpenSSH private key", about 1 key in 1,000): draw again until it reads.
 */
function sftpHostKey(): string {
  for (;;) {
    const key = ssh2.utils.generateKeyPairSync('ed25519').private;
    if (!(ssh2.utils.parseKey(key) instanceof Error)) return key;
  }
}

/** A real SFTP server (the ssh2 package's Server) serving `root` read-only, password login. */
export async function startSftpServer(opts: { username: string; password: string }) {
  const files = fileRoot();
  const hostKey = sftpHostKey();
  const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;
  const logins: string[] = [];
  const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
    client.on('authentication', (ctx) => {
      if (ctx.method === 'password') logins.push(ctx.username);
      if (ctx.method === 'password' && ctx.username === opts.username && ctx.password === opts.password) ctx.accept();
      else ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          const open = new Map<number, Buffer>();
          let next = 0;
          const resolve = (p: string) => join(files.root, posix.normalize('/' + p));
          const attrsOf = (size: number) => ({ mode: 0o100644, uid: 0, gid: 0, size, atime: 0, mtime: 0 });
          const read = (p: string) => {
            try {
              return readFileSync(resolve(p));
            } catch {
              return undefined;
            }
          };
          sftp.on('REALPATH', (reqid: number, p: string) => sftp.name(reqid, [{ filename: posix.normalize('/' + p), longname: '', attrs: attrsOf(0) }]));
          for (const ev of ['STAT', 'LSTAT'] as const) {
            sftp.on(ev, (reqid: number, p: string) => {
              const data = read(p);
              if (!data) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
              sftp.attrs(reqid, attrsOf(data.length));
            });
          }
          sftp.on('OPEN', (reqid, p, flags) => {
            if (flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND | OPEN_MODE.CREAT)) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
            const data = read(p);
            if (!data) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
            const handle = Buffer.alloc(4);
            handle.writeUInt32BE(++next);
            open.set(next, data);
            sftp.handle(reqid, handle);
          });
          sftp.on('FSTAT', (reqid, handle) => {
            const data = open.get(handle.readUInt32BE(0));
            if (!data) return sftp.status(reqid, STATUS_CODE.FAILURE);
            sftp.attrs(reqid, attrsOf(data.length));
          });
          sftp.on('READ', (reqid, handle, offset, length) => {
            const data = open.get(handle.readUInt32BE(0));
            if (!data) return sftp.status(reqid, STATUS_CODE.FAILURE);
            if (offset >= data.length) return sftp.status(reqid, STATUS_CODE.EOF);
            sftp.data(reqid, data.subarray(offset, Math.min(data.length, offset + length)));
          });
          sftp.on('CLOSE', (reqid, handle) => {
            open.delete(handle.readUInt32BE(0));
            sftp.status(reqid, STATUS_CODE.OK);
          });
        });
      });
    });
    client.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { ...files, port, logins, close: () => new Promise<void>((r) => server.close(() => r())) };
}
