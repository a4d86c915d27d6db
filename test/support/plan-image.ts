import sharp from 'sharp';

/**
 * A synthetic floor plan as an architect's export looks in black and white: a 1000 × 500 picture, walls 6 px wide,
 * ten units (five along the top, five along the bottom, the last an L around a stair core) either side of a corridor
 * open at both ends. `doors`: each unit's door to the corridor drawn as a gap this many pixels wide (0: closed walls).
 */
export function planSvg(opts: { doors?: number } = {}): string {
  const door = opts.doors ?? 0;
  const wall = (x1: number, y1: number, x2: number, y2: number) => `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" />`;
  const lines: string[] = [];
  // Outer walls, the corridor's ends (x 20 and 980 between y 220 and 280) left open.
  lines.push(wall(20, 20, 980, 20), wall(20, 480, 980, 480), wall(20, 20, 20, 220), wall(980, 20, 980, 220), wall(20, 280, 20, 480), wall(980, 280, 980, 480));
  for (const [top, bottom] of [
    [20, 220],
    [280, 480],
  ] as const) {
    // The corridor wall of this row, with a door gap in each unit's middle.
    const y = top === 20 ? 220 : 280;
    for (let i = 0; i < 5; i++) {
      const x0 = 20 + i * 192;
      const mid = x0 + 96;
      if (door) lines.push(wall(x0, y, mid - door / 2, y), wall(mid + door / 2, y, x0 + 192, y));
      else lines.push(wall(x0, y, x0 + 192, y));
      if (i > 0) lines.push(wall(x0, top, x0, bottom));
    }
  }
  // The stair core in the last bottom unit's corner: that unit is an L.
  lines.push(wall(900, 400, 980, 400), wall(900, 400, 900, 480));
  const labels = ['101', '102', '103', '104', '105', '106', '107', '108', '109', '110'].map((n, i) => {
    const x = 20 + (i % 5) * 192 + 96;
    const y = i < 5 ? 120 : 380;
    return `<text x="${x}" y="${y}" font-size="22" text-anchor="middle" fill="#444">${n}</text>`;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="500" viewBox="0 0 1000 500"><rect width="1000" height="500" fill="#fff"/>` +
    `<g stroke="#222" stroke-width="6" stroke-linecap="square">${lines.join('')}</g>${labels.join('')}</svg>`
  );
}

/** The plan as a PNG, as an upload would bring it. */
export const planPng = (opts: { doors?: number } = {}) =>
  sharp(Buffer.from(planSvg(opts)))
    .png()
    .toBuffer();

/** A small picture of one colour (a layout or a photo). */
export const swatchPng = (colour: string) =>
  sharp({ create: { width: 320, height: 200, channels: 3, background: colour } })
    .png()
    .toBuffer();

/** multipart/form-data with one part `file`, as POST /media takes it. */
export function filePart(body: Buffer, filename: string, type = 'image/png') {
  const boundary = `----showsuite${Math.random().toString(16).slice(2)}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head), body, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
