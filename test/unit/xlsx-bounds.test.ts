import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { checkZipBounds } from '../../src/modules/inventory/xlsx.ts';
import { zipOf } from '../zip.ts';

/**
 * The counts a workbook's sheets are refused on before any parser holds them: rows and cells with a value, counted
 * exactly across the inflater's 64 KiB chunks (a tag split between two chunks counts once).
 */
const row = (r: number, cells: number) => `<row r="${r}" spans="1:${cells}">${'<c r="A1" t="n"><v>12</v></c>'.repeat(cells)}<c r="Z1" s="3"/></row>`;
const sheet = (rows: number, cellsPerRow: number) =>
  `<?xml version="1.0"?><worksheet><sheetData>${Array.from({ length: rows }, (_, i) => row(i + 1, cellsPerRow)).join('')}` +
  `<row r="${rows + 1}"><c t="inlineStr"><is><t>inline</t></is></c></row></sheetData><rowBreaks/><rowBreaksX/><vertAlign/></worksheet>`;

describe('checkZipBounds', () => {
  test('rows and cells with a value are counted exactly across chunks; one more than the bound is refused', async () => {
    for (const [rows, cells] of [
      [3000, 7],
      [10, 3000],
      [1, 1],
    ] as const) {
      const xml = Buffer.from(sheet(rows, cells));
      const zip = zipOf('xl/worksheets/sheet1.xml', deflateRawSync(xml));
      const exact = { rows: rows + 1, cells: rows * cells + 1, dataRows: rows };
      const parts = await checkZipBounds(zip, 64 * 1024 * 1024, exact);
      assert.deepEqual(
        parts.map((p) => p.name),
        ['xl/worksheets/sheet1.xml'],
      );
      await assert.rejects(checkZipBounds(zip, 64 * 1024 * 1024, { ...exact, rows: rows }), { status: 413, code: 'too_many_rows' });
      await assert.rejects(checkZipBounds(zip, 64 * 1024 * 1024, { ...exact, cells: rows * cells }), { status: 413, code: 'payload_too_large' });
    }
  });

  test('a part is handed on whole, header to the next part', async () => {
    const zip = zipOf('xl/worksheets/sheet1.xml', deflateRawSync(Buffer.from(sheet(2, 2))));
    const [part] = await checkZipBounds(zip, 1024 * 1024, { rows: 10, cells: 10, dataRows: 5 });
    assert.equal(part?.record.readUInt32LE(0), 0x04034b50);
    assert.equal(part?.record.length, zip.readUInt32LE(zip.length - 6));
  });
});
