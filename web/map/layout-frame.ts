/**
 * The site plan's frame on the map (`layoutImageUrl`, `mapLayoutWidth`, `mapLayoutRotation`), as the buyer's page
 * places it (web/map/map-view.ts) and the console shows it (web/admin/map-draw.ts): the picture `width` metres wide,
 * centred on the location, turned `rotation` degrees clockwise (a compass turn) about its centre.
 */
export type Position = [number, number];

const METRES_PER_DEGREE = 111_320;

/** `at(x, y)`: a pixel of the picture on the globe ([lon, lat]); `corners`: the picture's four, from its top left clockwise. */
export function layoutFrame(center: Position, width: number, rotation: number, size: { w: number; h: number }) {
  const height = (width * size.h) / size.w;
  const turn = (rotation * Math.PI) / 180;
  const cos = Math.cos(turn);
  const sin = Math.sin(turn);
  const perLon = METRES_PER_DEGREE * Math.cos((center[1] * Math.PI) / 180);
  const at = (x: number, y: number): Position => {
    const east = (x / size.w - 0.5) * width;
    const north = (0.5 - y / size.h) * height;
    const e = east * cos + north * sin;
    const n = -east * sin + north * cos;
    return [center[0] + e / perLon, center[1] + n / METRES_PER_DEGREE];
  };
  return { at, corners: [at(0, 0), at(size.w, 0), at(size.w, size.h), at(0, size.h)] as [Position, Position, Position, Position] };
}
