import { useEffect, useRef, useState } from 'preact/hooks';
import { all, api, query } from '../api.ts';
import type { components } from '../../api-schema.d.ts';
import type { Project } from '../types.ts';
import { ErrorNotice, Loading, Notice, Select, useLoad, when } from '../ui.tsx';

export type Deposit = components['schemas']['Deposit'];
type Status = Deposit['status'] | '';

const STATUSES: [Status, string][] = [
  ['', 'All'],
  ['pending', 'Pending'],
  ['paid', 'Paid'],
  ['expired', 'Expired'],
  ['refunded', 'Refunded'],
];
export const depositStatusLabel = (s: Deposit['status']) => STATUSES.find(([v]) => v === s)?.[1] ?? s;
const label = depositStatusLabel;

/** The project's Deposits tab with one deposit marked (and scrolled to). */
export const depositLink = (project: string, deposit: string) => `/admin/projects/${project}/deposits${query({ deposit })}`;

/** An amount in the currency's minor unit (as Stripe counts it) written in its major unit: 50000 usd → "$500.00". */
export function depositAmount(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${code}`;
  }
}

/**
 * A project's deposits, newest first: filtered by status here, downloaded as CSV, a paid one refunded after a
 * confirmation. `marked` (the address's `?deposit=`, from a unit's sheet, a lead or the team's mail) is shown marked.
 */
export function Deposits({ project, marked }: { project: Project; marked?: string | undefined }) {
  const [rows, setRows] = useState<Deposit[]>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState<Status>('');
  const [asking, setAsking] = useState<Deposit>();
  const [news, setNews] = useState('');
  const load = () =>
    all(`/projects/${project._id}/deposits`).then(
      (list) => setRows(list),
      (err: unknown) => setError(err),
    );
  useEffect(() => void load(), [project._id]);

  const refund = async (d: Deposit) => {
    setError(undefined);
    setNews('');
    try {
      const done = await api.post(`/deposits/${d._id}/refund`);
      // The refund's answer may not name the unit; the listed row does.
      setRows((list) => list?.map((r) => (r._id === done._id ? { ...done, unitName: done.unitName ?? r.unitName } : r)));
      setNews(`Refunded ${depositAmount(d.amount, d.currency)} to ${d.buyerName || d.buyerEmail}.`);
    } catch (err) {
      setError(err);
      void load();
    }
  };

  const shown = (rows ?? []).filter((d) => !status || d.status === status);
  const csv = `/projects/${project._id}/deposits${query({ format: 'csv' })}`;
  return (
    <div class="deposits">
      <h2>Deposits</h2>
      <p class="muted">Deposits buyers paid through Stripe when holding a unit, newest first. A refund returns the whole amount; the unit stays as it is.</p>
      <ErrorNotice error={error} />
      <Notice kind="ok">{news}</Notice>
      <div class="row wrap between">
        <Select label="Status" value={status} options={STATUSES} onValue={setStatus} />
        <a class="button secondary" href={csv} download={`deposits-${project.namespace ?? project._id}.csv`} id="deposits-csv">
          Download CSV
        </a>
      </div>
      {!rows && !error ? (
        <Loading what="Loading deposits" />
      ) : rows && !shown.length ? (
        <p>{rows.length ? 'No deposit has this status.' : 'No deposits yet.'}</p>
      ) : rows ? (
        <div class="table-wrap">
          <table class="grid deposits-table">
            <caption class="sr-only">Deposits of {project.name}</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col">Buyer</th>
                <th scope="col">Unit</th>
                <th scope="col">Times</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((d) => (
                <DepositRow key={d._id} d={d} marked={d._id === marked} onRefund={setAsking} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {asking && <ConfirmRefund deposit={asking} onClose={() => setAsking(undefined)} onRefund={refund} />}
    </div>
  );
}

/** One deposit: its status, amount, buyer, unit and times; Refund when it is paid. */
function DepositRow({ d, marked, onRefund }: { d: Deposit; marked: boolean; onRefund: (d: Deposit) => void }) {
  const ref = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (marked) ref.current?.scrollIntoView({ block: 'center' });
  }, [marked]);
  return (
    <tr ref={ref} data-deposit={d._id} data-status={d.status} class={marked ? 'marked' : undefined} aria-current={marked ? 'true' : undefined}>
      <td data-label="Status">
        <span class={`badge deposit-${d.status}`}>{label(d.status)}</span>
      </td>
      <td data-label="Amount" class="num">
        {depositAmount(d.amount, d.currency)}
      </td>
      <td data-label="Buyer">
        <div>
          {d.buyerName || '—'}
          {d.buyerEmail && (
            <div class="small">
              <a href={`mailto:${d.buyerEmail}`}>{d.buyerEmail}</a>
            </div>
          )}
        </div>
      </td>
      <td data-label="Unit">{d.unitName ?? (d.unit ? '—' : 'deleted')}</td>
      <td data-label="Times" class="small">
        <div>
          <div>Created {when(d.createdAt)}</div>
          {d.paidAt && <div>Paid {when(d.paidAt)}</div>}
          {d.expiredAt && <div>Expired {when(d.expiredAt)}</div>}
          {d.refundedAt && <div>Refunded {when(d.refundedAt)}</div>}
          {d.status === 'pending' && <div>Window ends {when(d.expiresAt)}</div>}
        </div>
      </td>
      <td data-label="" class="actions">
        {d.status === 'paid' && (
          <button type="button" class="secondary danger" onClick={() => onRefund(d)}>
            Refund
          </button>
        )}
      </td>
    </tr>
  );
}

/** "Refund $500.00 to Vera Buyer?" as a modal dialog: Refund or Cancel (Escape). */
function ConfirmRefund({ deposit: d, onClose, onRefund }: { deposit: Deposit; onClose: () => void; onRefund: (d: Deposit) => Promise<void> }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => opener?.focus();
  }, []);
  const go = async () => {
    setBusy(true);
    await onRefund(d);
    ref.current?.close();
  };
  const buyer = [d.buyerName, d.buyerEmail && `(${d.buyerEmail})`].filter(Boolean).join(' ');
  return (
    <dialog ref={ref} class="history refund" aria-labelledby="refund-h" aria-describedby="refund-d" onClose={onClose}>
      <h2 id="refund-h">Refund {depositAmount(d.amount, d.currency)}?</h2>
      <p id="refund-d">
        Stripe returns {depositAmount(d.amount, d.currency)} to {buyer || 'the buyer'} for {d.unitName ?? 'the unit'}. This cannot be undone; the unit stays as
        it is.
      </p>
      <div class="row">
        <button type="button" class="danger-solid" onClick={go} disabled={busy}>
          Refund {depositAmount(d.amount, d.currency)}
        </button>
        <button type="button" class="secondary" onClick={() => ref.current?.close()} disabled={busy}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

/** One line of a deposit where the team meets it elsewhere (a unit's sheet, a lead): status, amount, paid when, and the link to it. */
export function DepositLine({
  project,
  d,
  who,
}: {
  project: string;
  d: Pick<Deposit, '_id' | 'status' | 'amount' | 'currency'> & { paidAt?: string | null };
  who?: string;
}) {
  return (
    <span class="deposit-line" data-deposit={d._id} data-status={d.status}>
      <span class={`badge deposit-${d.status}`}>Deposit {label(d.status).toLowerCase()}</span> {depositAmount(d.amount, d.currency)}
      {d.paidAt && <> · paid {when(d.paidAt)}</>}
      {who && <> · {who}</>} ·{' '}
      <a href={depositLink(project, d._id)} aria-label={`See the ${depositAmount(d.amount, d.currency)} deposit in Deposits`}>
        See in Deposits
      </a>
    </span>
  );
}

/** A unit's deposits, newest first, in its sheet (owner and administrators: the list answers editors 403). */
export function UnitDeposits({ unit }: { unit: { _id: string; project: string } }) {
  const list = useLoad(() => api.get(`/projects/${unit.project}/deposits`, { query: { 'filters[unit]': unit._id, 'options[limit]': 5 } }), [unit._id]);
  if (list.error) return <ErrorNotice error={list.error} />;
  if (!list.data?.length) return null;
  return (
    <section class="unit-deposits" aria-labelledby="unit-deposits-h">
      <h3 id="unit-deposits-h">Deposits</h3>
      <ul class="plain">
        {list.data.map((d) => (
          <li key={d._id}>
            <DepositLine project={unit.project} d={d} who={d.buyerName || d.buyerEmail} />
          </li>
        ))}
      </ul>
    </section>
  );
}
