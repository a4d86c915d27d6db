/**
 * The words of the page's newer parts (legend, search, favourites and compare, calculator, the sheet's terms and
 * lightbox), per language like i18n.ts; kept apart so those parts stay in their own modules.
 */
const en = {
  badEmail: 'is not a valid e-mail address',
  legendTitle: 'Status',
  search: 'Find a unit',
  searchPlaceholder: 'Unit name or number',
  floor: 'Floor',
  delivery: 'Delivery',
  depositTerms: 'Terms',
  payable: 'Payable now',
  depositToHold: (amount: string) => `${amount} deposit to hold this home`,
  depositIntro: (amount: string) => `To hold this home, you pay a ${amount} deposit on Stripe's secure page next. We need your details:`,
  payNow: 'Pay Now',
  currency: 'Currency',
  favourite: 'Save',
  favourited: 'Saved',
  favourites: (n: number) => `Shortlist (${n})`,
  compare: 'Compare',
  compareTitle: 'Compare homes',
  compareFull: 'Up to three homes can be compared: remove one first.',
  compareEmpty: 'Save up to three homes to compare them here.',
  shareShortlist: 'Share shortlist',
  remove: 'Remove',
  price: 'Price',
  open: 'Open',
  calculator: 'Payment calculator',
  depositPct: 'Deposit (%)',
  rate: 'Interest rate (% a year)',
  years: 'Years',
  monthly: 'Monthly payment',
  loan: 'Loan',
  calcNote: 'An estimate: standard repayment loan, fixed rate, monthly payments.',
  photo: (i: number, n: number) => `Photo ${i} of ${n}`,
  previous: 'Previous',
  next: 'Next',
  layouts: 'Layouts',
  model3d: '3D model',
  view3d: 'View in 3D',
  loading3d: 'Loading the 3D model…',
  perMonth: '/ month',
  apply: 'Apply',
  lotArea: 'Lot area',
};

export type ExtraWords = typeof en;

let current: ExtraWords = en;
/** The words in the page's language (the one `useLanguage` chose; French and Spanish are chunks: web/words/). */
export const x = (): ExtraWords => current;
/** Set by `useLanguage` (web/i18n.ts): a language's words, or undefined for English. */
export function useExtraWords(words: ExtraWords | undefined) {
  current = words ?? en;
}
