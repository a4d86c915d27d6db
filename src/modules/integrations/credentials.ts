import { ERRORS } from '../../http/errors.catalogue.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { complete, type Connector, type Credentials } from './connector.ts';

/**
 * A project's values of one connector's fields: plain text fields as stored, sealed ones opened. A sealed value that no
 * longer opens (sealed under a key since retired) counts as unset. Only ever handed to the connector's calls.
 */
export function credentialsOf(connector: Connector, project: { data: unknown; secrets: unknown }, secrets: SecretBox): Credentials {
  const data = (project.data ?? {}) as Record<string, unknown>;
  const sealed = (project.secrets ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const field of connector.fields) {
    const stored = sealed[field];
    if (typeof stored === 'string') {
      try {
        out[field] = secrets.open(stored);
      } catch {
        // unreadable: unset
      }
    } else if (typeof data[field] === 'string') out[field] = data[field];
  }
  return out;
}

/** 409 naming the fields missing, unless the connector's credentials are all set. */
export function requireComplete(connector: Connector, creds: Credentials): void {
  if (complete(connector, creds)) return;
  const missing = connector.required.filter((f) => !(creds[f] ?? '').trim());
  throw ERRORS.conflict(`${connector.label} is not set up: ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set`);
}
