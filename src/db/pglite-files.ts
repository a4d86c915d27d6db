import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

/** The file whose presence makes a directory an embedded database (PostgreSQL's own marker). */
export const PG_VERSION = 'PG_VERSION';

/**
 * Creates `dir` as a copy of the database in the tarball `tarPath` (ustar, as PGlite's `dumpDataDir` writes it),
 * with plain file system writes: tens of milliseconds, where loading it through PGlite's WebAssembly file system
 * took seconds. The files are written into `<dir>.partial` and that directory is renamed to `dir` last, so a start
 * that is killed half-way leaves no `PG_VERSION` in `dir`, and the next start removes the leftovers and unpacks
 * again. Not fsynced, as PGlite itself runs with fsync off: a crash of the process is covered, a power cut is not.
 */
export function unpackDataDir(tarPath: string, dir: string): void {
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true, mode: 0o700 });
  const tar = readFileSync(tarPath);
  let at = 0;
  for (;;) {
    // A tarball cut at an entry boundary has no end-of-archive block: refused like one cut inside an entry.
    if (at + 512 > tar.length) throw new Error(`${tarPath}: truncated (no end-of-archive block)`);
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break; // end of archive
    if (!checksumOk(header)) throw new Error(`${tarPath}: bad tar header at byte ${at}`);
    const name = field(header, 345, 155) ? `${field(header, 345, 155)}/${field(header, 0, 100)}` : field(header, 0, 100);
    const size = parseInt(field(header, 124, 12) || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    at += 512;
    if (at + size > tar.length) throw new Error(`${tarPath}: truncated at ${name}`);
    const rel = normalize(name.replace(/^\/+/, ''));
    if (rel === '.' || rel.startsWith('..') || rel.split(sep).includes('..')) throw new Error(`${tarPath}: unsafe path ${name}`);
    const target = join(partial, rel);
    if (type === '5') mkdirSync(target, { recursive: true, mode: 0o700 });
    else if (type === '0' || type === '\0') {
      // The lock file of the instance that wrote the tarball is not part of the database.
      if (rel !== 'postmaster.pid') {
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
        const fd = openSync(target, 'w', 0o600);
        try {
          writeAll(fd, tar.subarray(at, at + size));
        } finally {
          closeSync(fd);
        }
      }
    } else throw new Error(`${tarPath}: unsupported entry type ${JSON.stringify(type)} for ${name}`);
    at += Math.ceil(size / 512) * 512;
  }
  if (!existsSync(join(partial, PG_VERSION))) throw new Error(`${tarPath}: no ${PG_VERSION}, not a database`);
  // What a start that stopped before the rename left (or an older start's half-loaded directory): never a database,
  // since PG_VERSION only ever arrives with the rename.
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
}

function writeAll(fd: number, data: Uint8Array) {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off);
}

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end === -1 ? bytes : bytes.subarray(0, end))
    .toString('utf8')
    .trim();
}

function checksumOk(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  return parseInt(field(header, 148, 8), 8) === sum;
}
