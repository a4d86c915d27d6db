import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { englishInteger, englishMoney } from '../numbers.ts';

let idCounter = 0;
export const useId = (prefix = 'f') => useRef(`${prefix}-${++idCounter}`).current;

/**
 * Loads on mount and whenever `deps` change; `reload` runs it again and resolves once its answer is in the state, so
 * a caller can say "done" only when the screen shows it.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const run = useCallback(async (): Promise<void> => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    await load().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: unknown) => mine === seq.current && setState({ error, loading: false }),
    );
    // The caller names what the load depends on (`deps`), as with useEffect.
  }, deps);
  useEffect(() => void run(), [run]);
  return { ...state, reload: run, set: (data: T) => setState({ data, loading: false }) };
}

export const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err));

/** A status line: polite for news, assertive (role=alert) for errors. */
export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error' | 'ok' | 'warn'; children: ComponentChildren }) {
  if (!children) return null;
  return (
    <p class={`notice ${kind}`} role={kind === 'error' || kind === 'warn' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  return <Notice kind="error">{messageOf(error)}</Notice>;
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

type InputProps = Omit<InputHTMLAttributes, 'label' | 'onInput' | 'value'> & {
  label: string;
  value: string | number | undefined;
  onValue: (v: string) => void;
  error?: string | undefined;
  hint?: string;
};

export function Field({ label, value, onValue, error, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value ?? ''}
        onInput={(e) => onValue((e.target as HTMLInputElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error || hint ? `${id}-d` : undefined}
        {...rest}
      />
      {(error || hint) && (
        <small id={`${id}-d`} class={error ? 'field-error' : 'hint'}>
          {error || hint}
        </small>
      )}
    </div>
  );
}

export function TextArea({ label, value, onValue, rows = 3 }: { label: string; value: string | undefined; onValue: (v: string) => void; rows?: number }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value ?? ''} onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)} />
    </div>
  );
}

export function Toggle({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (v: boolean) => void; hint?: string }) {
  const id = useId();
  return (
    <div class="toggle">
      <input type="checkbox" id={id} checked={checked} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
      <label for={id}>
        {label}
        {hint && <small class="hint"> — {hint}</small>}
      </label>
    </div>
  );
}

/** A choice among `options` (value, label); `onValue` gets one of their values (a field typed by the API keeps its type). */
export function Select<V extends string>({
  label,
  value,
  options,
  onValue,
  hint,
}: {
  label: string;
  value: V;
  options: [V, string][];
  onValue: (v: V) => void;
  hint?: string | undefined;
}) {
  const id = useId();
  const choose = (picked: string) => {
    const option = options.find(([v]) => v === picked);
    if (option) onValue(option[0]);
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => choose(e.currentTarget.value)} aria-describedby={hint ? `${id}-d` : undefined}>
        {options.map(([v, l]) => (
          <option value={v} key={v}>
            {l}
          </option>
        ))}
      </select>
      {hint && (
        <small id={`${id}-d`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** Moves focus to the main heading when the screen changes, so screen readers and keyboards start there. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // A link to a part of the screen (`#set-waitlist`) keeps that part in view; the heading still takes focus.
    ref.current?.focus({ preventScroll: location.hash !== '' });
    document.title = `${ref.current?.textContent ?? 'Console'} · Showsuite`;
  }, [typeof children === 'string' ? children : '']);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** A price as the buyer's page writes it in English, in the project's currency (`currencyOf`, web/numbers.ts). */
export function money(n: number | undefined, currency = 'USD'): string {
  if (typeof n !== 'number') return '—';
  const code = currency.toUpperCase();
  const english = englishMoney(n, code);
  if (english !== undefined) return english;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code, maximumFractionDigits: 0 }).format(n);
  } catch {
    return new Intl.NumberFormat('en', { maximumFractionDigits: 0 }).format(n);
  }
}
/** A whole number with thousands separators, as the grid's price cells show it ("1,250,000"). */
export const grouped = (n: number) => englishInteger(n) ?? String(n);
export const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—');
