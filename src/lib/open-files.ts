import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Descriptors a node needs besides its clients' connections: database pool, Redis, mail, files, logs. */
export const OPEN_FILES_HEADROOM = 256;

/**
 * The open-file limit a node needs to hold `maxConnections` client connections (MAX_CONNECTIONS, which counts the
 * live-feed streams among them) and everything else at once.
 */
export const openFilesNeeded = (maxConnections: number) => maxConnections + OPEN_FILES_HEADROOM;

/**
 * The process's soft limit on open files (RLIMIT_NOFILE): from /proc/self/limits on Linux, else what `ulimit -n`
 * answers in a child shell (which inherits the limit). Undefined when neither tells (or it is unlimited).
 */
export function softOpenFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft !== undefined) return /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    // Not Linux: ask a shell.
  }
  try {
    const out = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 }).stdout.trim();
    return /^\d+$/.test(out) ? Number(out) : undefined;
  } catch {
    return undefined;
  }
}

/** The start-up warning when the limit is below what the connection bound needs; undefined when it is enough. */
export function openFilesWarning(limit: number | undefined, bounds: { maxConnections: number; maxStreams: number }): string | undefined {
  const needed = openFilesNeeded(bounds.maxConnections);
  if (limit === undefined || limit >= needed) return undefined;
  return (
    `the open-file limit (${limit}) is below the ${needed} this node needs for MAX_CONNECTIONS=${bounds.maxConnections} connections ` +
    `(SSE_MAX_STREAMS=${bounds.maxStreams} live-feed streams among them) and ${OPEN_FILES_HEADROOM} more: raise it (ulimit -n ${needed}, ` +
    'LimitNOFILE= in systemd, --ulimit nofile= in Docker) or lower MAX_CONNECTIONS'
  );
}
