// The page's English prices and areas written without Intl (web/numbers.ts) are exactly Intl's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { englishInteger, englishMoney } from '../web/numbers.ts';

const samples = [0, -0, 1, 7, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 750_000, 1_234_567, 2 ** 53, 1e20, 9.99e20, -1, -1000, -1_234_567];
const halves = [0.5, 1.5, 2.5, 999.5, 999_999.5, 0.49999999999999994, 2.4999999999999996, -0.5, -2.5, -0.4, 1234.56, 12.345];

test('prices: the symbol, the grouping and the rounding of Intl.NumberFormat("en", currency, no decimals)', () => {
  for (const currency of ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'NZD', 'MXN', 'JPY']) {
    const intl = new Intl.NumberFormat('en', { style: 'currency', currency, maximumFractionDigits: 0 });
    for (const n of [...samples, ...halves]) assert.equal(englishMoney(n, currency), intl.format(n), `${currency} ${n}`);
    for (let i = 0; i < 2000; i++) {
      const n = Math.round(Math.random() * 10 ** (1 + (i % 10))) / (i % 3 === 0 ? 100 : 1);
      assert.equal(englishMoney(n, currency), intl.format(n), `${currency} ${n}`);
    }
  }
});

test('areas: whole numbers as Intl.NumberFormat("en") writes them; anything else is left to Intl', () => {
  const intl = new Intl.NumberFormat('en');
  for (const n of samples) assert.equal(englishInteger(n), intl.format(n), String(n));
  for (let i = 0; i < 2000; i++) {
    const n = Math.floor(Math.random() * 10 ** (1 + (i % 12)));
    assert.equal(englishInteger(n), intl.format(n), String(n));
  }
  for (const n of [12.5, 0.1, 1e21, Infinity, NaN]) assert.equal(englishInteger(n), undefined, String(n));
});

test('what it does not know goes to Intl: other currencies, numbers written with an exponent', () => {
  assert.equal(englishMoney(1000, 'CHF'), undefined);
  assert.equal(englishMoney(1000, 'XYZ'), undefined);
  assert.equal(englishMoney(1e21, 'USD'), undefined);
  assert.equal(englishMoney(NaN, 'USD'), undefined);
});
