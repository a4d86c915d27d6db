// A fresh service with the demo for the page's measuring scripts (lighthouse.ts, longtasks.ts): the embedded
// database in `dataDir`, the demo seed, a free port on the loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../bench/harness.ts';

/** Starts the service from the sources; resolves with the process and the demo presentation's address once it is ready. */
export async function startDemoService(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'true' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('Showsuite ready on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the service exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/p/harbourview` };
}
