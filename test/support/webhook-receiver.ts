import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A real HTTP receiver on loopback: answers with what `answer` returns (a status, or 'hang' to never answer). */
export class Receiver {
  readonly received: { headers: IncomingHttpHeaders; body: string }[] = [];
  readonly server: Server;
  readonly sockets = new Set<Socket>();
  constructor(public answer: (n: number) => number | 'hang' = () => 200) {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body });
        const a = this.answer(this.received.length);
        if (a !== 'hang') res.writeHead(a).end();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }
  async listen(port = 0) {
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', r));
    return this;
  }
  get port() {
    return (this.server.address() as AddressInfo).port;
  }
  get url() {
    return `http://127.0.0.1:${this.port}/hook`;
  }
  async close() {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
  events() {
    return this.received.map((r) => JSON.parse(r.body));
  }
}
