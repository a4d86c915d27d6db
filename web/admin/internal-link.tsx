/**
 * A record's `internalURL`: the sales team's own page about it (a CRM record, a shared drive), never shown to buyers.
 * The console links it beside the record's name; only an http(s) address is a link (a colleague's typo or a
 * `javascript:` address is shown as text, never followed).
 */
export function InternalLink({ url, id }: { url: unknown; id: string }) {
  if (typeof url !== 'string' || !url.trim()) return null;
  const href = /^https?:\/\//i.test(url.trim()) ? url.trim() : undefined;
  return (
    <>
      {' · '}
      {href ? (
        <a id={id} href={href} target="_blank" rel="noopener noreferrer" title={href}>
          Internal link
        </a>
      ) : (
        <span id={id} class="muted" title="Not an http(s) address, so not a link">
          Internal: {url}
        </span>
      )}
    </>
  );
}
