// The buyer's page's pure arithmetic (web/counting.ts): the Filters button's count and the payment calculator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { activeFilterCount, featuredFirst, isHome, monthlyPayment, spaceKind } from '../../web/counting.ts';

const none = { priceMin: '', priceMax: '', areaMin: '', areaMax: '', bedrooms: '', availability: '', search: '' };

test('activeFilterCount: a range is one filter, blanks are none, the search box is not a filter', () => {
  assert.equal(activeFilterCount(none), 0);
  assert.equal(activeFilterCount({ ...none, priceMin: '500000' }), 1);
  assert.equal(activeFilterCount({ ...none, priceMin: '500000', priceMax: '900000' }), 1);
  assert.equal(activeFilterCount({ ...none, priceMax: '900000', areaMin: '60', bedrooms: '2', availability: 'available' }), 4);
  assert.equal(activeFilterCount({ ...none, bedrooms: '  ' }), 0);
  assert.equal(activeFilterCount({ ...none, search: 'A1' }), 0);
  assert.equal(activeFilterCount({}), 0);
});

test('monthlyPayment: the annuity formula, a zero rate, a full deposit, nonsense', () => {
  // 500,000 with 20% down: a 400,000 loan at 6% over 30 years is 2,398.20 a month (the textbook figure).
  assert.equal(monthlyPayment(500_000, 20, 6, 30)!.toFixed(2), '2398.20');
  // 200,000 at 5% over 15 years, nothing down: 1,581.59.
  assert.equal(monthlyPayment(200_000, 0, 5, 15)!.toFixed(2), '1581.59');
  // No interest: the loan spread evenly over the months.
  assert.equal(monthlyPayment(120_000, 0, 0, 10), 1000);
  // The payments repay the loan: the balance after the last month is zero.
  const [loan, r, n] = [350_000, 0.045 / 12, 25 * 12];
  const m = monthlyPayment(350_000, 0, 4.5, 25)!;
  let balance = loan;
  for (let i = 0; i < n; i++) balance = balance * (1 + r) - m;
  assert.ok(Math.abs(balance) < 1e-6, String(balance));
  assert.equal(monthlyPayment(500_000, 100, 5, 30), 0);
  assert.equal(monthlyPayment(500_000, 150, 5, 30), 0);
  assert.equal(monthlyPayment(0, 20, 5, 30), 0);
  const bads: [number, number, number, number][] = [
    [Number.NaN, 20, 5, 30],
    [500_000, -1, 5, 30],
    [500_000, 20, -5, 30],
    [500_000, 20, 5, 0],
    [500_000, 20, 5, Infinity],
  ];
  for (const bad of bads) {
    assert.equal(monthlyPayment(...bad), undefined, String(bad));
  }
});

test('spaceKind and isHome: unit (or nothing) is a home; amenities, parking, storage and any other word are not', () => {
  for (const home of [undefined, '', ' ', 'unit', 'Unit', 'units', 3]) assert.equal(isHome({ specificType: home }), true, String(home));
  assert.equal(spaceKind('Amenities'), 'amenities');
  assert.equal(spaceKind('amenity'), 'amenities');
  assert.equal(spaceKind('parkings'), 'parking');
  assert.equal(spaceKind('Storage'), 'storage');
  assert.equal(spaceKind('commercial'), 'other');
  assert.equal(isHome({ specificType: 'parking' }), false);
});

test('featuredFirst: featured units first, the others in their order', () => {
  const list = [{ n: 1 }, { n: 2, isFeatured: true }, { n: 3 }, { n: 4, isFeatured: true }, { n: 5, isFeatured: 'yes' }];
  assert.deepEqual(
    featuredFirst(list).map((x) => x.n),
    [2, 4, 1, 3, 5],
  );
});
