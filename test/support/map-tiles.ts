import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/**
 * A map tile server on 127.0.0.1, as MapLibre reads one: a style JSON (`/style.json`, MapLibre's style specification,
 * version 8) with one raster source whose tiles (`/tiles/{z}/{x}/{y}.png`) are PNGs made here with sharp: pale ground
 * with a darker edge, so tiles are seen on a screenshot. Every path asked for is kept in `requested`.
 */
export interface TileServer {
  url: string;
  styleUrl: string;
  requested: string[];
  close(): Promise<void>;
}

export async function startTileServer(): Promise<TileServer> {
  const edge = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="#e8eddf"/><path d="M0 0H256V256" fill="none" stroke="#b9c4a8" stroke-width="4"/><path d="M0 128H256M128 0V256" stroke="#f7f7f2" stroke-width="10"/></svg>',
  );
  const tile = await sharp(edge).png().toBuffer();
  const requested: string[] = [];
  let url = '';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requested.push(path);
    // MapLibre fetches across origins: the page is on another port.
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (path === '/style.json') {
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          version: 8,
          sources: { ground: { type: 'raster', tiles: [`${url}/tiles/{z}/{x}/{y}.png`], tileSize: 256, maxzoom: 19 } },
          layers: [
            { id: 'background', type: 'background', paint: { 'background-color': '#dfe6d3' } },
            { id: 'ground', type: 'raster', source: 'ground' },
          ],
        }),
      );
      return;
    }
    if (/^\/tiles\/\d+\/\d+\/\d+\.png$/.test(path)) {
      res.setHeader('Content-Type', 'image/png');
      res.end(tile);
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    styleUrl: `${url}/style.json`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
