import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mediaSrcset } from '../../src/modules/media/srcset.ts';

const PNG = '/media/0123456789abcdef0123456789abcdef.png';

test('mediaSrcset: an uploaded raster picture of this origin gets widths up to the largest asked; anything else none', () => {
  assert.equal(mediaSrcset(PNG, 'https://a.example', 480), `${PNG}?w=160 160w, ${PNG}?w=320 320w, ${PNG}?w=480 480w`);
  const abs = `https://a.example${PNG.replace('.png', '.jpg')}`;
  assert.match(mediaSrcset(abs, 'https://a.example') ?? '', /\.jpg\?w=2560 2560w$/);
  for (const other of [
    `https://b.example${PNG}`, // another site
    PNG.replace('.png', '.svg'), // scales itself
    PNG.replace('.png', '.pdf'),
    '/p/assets/demo-hero.webp', // the demo's static pictures
    `${PNG}?w=640`,
    'javascript:alert(1)',
    undefined,
  ]) {
    assert.equal(mediaSrcset(other, 'https://a.example'), undefined, String(other));
  }
});
