import type { IntegrationsConfig } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';

/** The integrations a project may have, by the name in `/projects/{id}/integrations/{name}`. */
export const INTEGRATION_NAMES = ['spark', 'salesforce', 'zoho', 'rentcafe', 'cal'] as const;
export type IntegrationName = (typeof INTEGRATION_NAMES)[number];

/** A project's values of one connector's fields: plain fields as stored, sealed ones opened (never logged or shown). */
export type Credentials = Readonly<Record<string, string>>;

/** What a connector reaches the vendor with. */
export interface VendorDeps {
  config: IntegrationsConfig;
  clock: Clock;
  allowPrivate: boolean;
  /** Access tokens a connector obtained, per node, by a key it makes from the project and its credentials. */
  tokens: TokenCache;
}

/** A lead as a CRM is sent it: who, how they came (source and UTM), and where the sales team is with it. */
export interface CrmLead {
  id: string;
  projectName: string;
  firstName: string;
  lastName: string;
  email: string;
  phone?: string;
  message?: string;
  unit?: string;
  source: string;
  utm: { source?: string; medium?: string; campaign?: string; term?: string; content?: string };
  status: string;
  notes: string | null;
  /** The deposit of the lead's hold, when it has one: where it stands, in major units of its currency. */
  deposit?: { status: string; amount: number; currency: string };

  /** A lead from a Cal.com booking: the visit and where it stands. */
  booking?: { status: string; startTime?: string };
  createdAt: string;
}

/** A CRM's two calls: create the lead (answering the vendor's id for it), and update it by that id. */
export interface CrmCalls {
  create(creds: Credentials, lead: CrmLead, deps: VendorDeps): Promise<string>;
  update(creds: Credentials, externalId: string, lead: CrmLead, deps: VendorDeps): Promise<void>;
  /** After the id is kept: links the vendor's record where the project says (repeatable; run after each push). */
  attach?(creds: Credentials, externalId: string, deps: VendorDeps): Promise<void>;
}

/**
 * One integration: its project fields (all with its prefix), which of them are credentials that must be set for it to
 * act, and what it does. Every call throws a `VendorError` whose message says what went wrong in words.
 */
export interface Connector {
  name: IntegrationName;
  /** How the console and errors name the vendor. */
  label: string;
  /** Every project field of this integration. */
  fields: readonly string[];
  /** The fields that must all be set for it to act. */
  required: readonly string[];
  /** Calls the vendor with the credentials (no change there); absent: the connector has no test yet. */
  test?(creds: Credentials, deps: VendorDeps): Promise<void>;
  /** A CRM: every lead is pushed to it and updated there. */
  crm?: CrmCalls;
}

/** Acts only when every required field is set (and not blank). */
export const complete = (connector: Connector, creds: Credentials) => connector.required.every((f) => (creds[f] ?? '').trim() !== '');

/** Access tokens by key, each until its expiry (ms since epoch). Per node: a node without one simply fetches its own. */
export class TokenCache {
  readonly #tokens = new Map<string, { value: unknown; until: number }>();

  get(key: string, now: number): unknown {
    const hit = this.#tokens.get(key);
    if (!hit) return undefined;
    if (hit.until <= now) {
      this.#tokens.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: unknown, until: number): void {
    // Bounded: a node serving many projects keeps the most recent tokens.
    if (this.#tokens.size >= 1000) {
      const oldest = this.#tokens.keys().next().value;
      if (oldest !== undefined) this.#tokens.delete(oldest);
    }
    this.#tokens.set(key, { value, until });
  }

  drop(key: string): void {
    this.#tokens.delete(key);
  }
}
