import { useMemo, useState } from 'preact/hooks';
import { api, ApiError, etagOf } from '../api.ts';
import type { operations } from '../../api-schema.d.ts';
import type { Project, User } from '../types.ts';
import { ErrorNotice, Field, Notice, PageTitle, Select, TextArea, Toggle, useId } from '../ui.tsx';
import { canManage } from '../access.ts';
import { fieldText } from '../csv.ts';
import { DEFAULTS, PagePreview } from './preview.tsx';
import { MediaField, MediaList } from '../upload.tsx';
import { IntegrationLive, useIntegrationStates, type IntegrationName } from './integration-state.tsx';
import { LockQuestions } from './lock-questions.tsx';

/** What a setting names: a field PATCH /projects/{id} takes (secrets are written, never read back). */
type Key = keyof NonNullable<operations['updateProject']['requestBody']>['content']['application/json'];
type Kind =
  'text' | 'email' | 'url' | 'number' | 'bool' | 'color' | 'long' | 'secret' | 'image' | 'gallery' | 'documents' | 'questions' | ['select', [string, string][]];
interface Setting {
  key: Key;
  label: string;
  kind: Kind;
  hint?: string;
}
/** One integration's fields, under its name, with what the service does with them today. */
interface Integration {
  name: string;
  /** Its name in the API: the service shows its state and can test it. */
  id?: IntegrationName;
  /** What the service does with these fields, in words a person can hold it to. */
  state: 'connected' | 'crm' | 'bookings' | 'availability' | 'stored' | 'custom';
  settings: Setting[];
}
interface Group {
  id: string;
  title: string;
  intro?: string;
  settings: Setting[];
  integrations?: Integration[];
  /** Only owners and administrators may change these. */
  managers?: boolean;
}

/** The currencies a project's prices can be written in (ISO 4217, lower case as `chargeCurrency` keeps them). */
const CURRENCIES: [string, string][] = [
  ['usd', 'US dollar (USD)'],
  ['cad', 'Canadian dollar (CAD)'],
  ['eur', 'Euro (EUR)'],
  ['gbp', 'Pound sterling (GBP)'],
  ['aud', 'Australian dollar (AUD)'],
  ['nzd', 'New Zealand dollar (NZD)'],
  ['mxn', 'Mexican peso (MXN)'],
  ['chf', 'Swiss franc (CHF)'],
  ['aed', 'UAE dirham (AED)'],
  ['sgd', 'Singapore dollar (SGD)'],
  ['hkd', 'Hong Kong dollar (HKD)'],
  ['jpy', 'Japanese yen (JPY)'],
];

const t = (key: Key, label: string, hint?: string): Setting => ({ key, label, kind: 'text', ...(hint ? { hint } : {}) });
const b = (key: Key, label: string, hint?: string): Setting => ({ key, label, kind: 'bool', ...(hint ? { hint } : {}) });
const c = (key: Key, label: string): Setting => ({ key, label, kind: 'color' });
const s = (key: Key, label: string): Setting => ({ key, label, kind: 'secret' });

/** Every IANA zone this browser knows, UTC first (what a project without one reads in). */
const TIME_ZONES: [string, string][] = [
  ['UTC', 'UTC'],
  ...Intl.supportedValuesOf('timeZone')
    .filter((z) => z !== 'UTC')
    .map((z): [string, string] => [z, z.replace(/_/g, ' ')]),
];

export const GROUPS: Group[] = [
  {
    id: 'general',
    title: 'General',
    settings: [
      t('name', 'Project name'),
      t('namespace', 'Public address (/p/…)', 'Lower-case letters, digits and dashes.'),
      t('hostName', 'Own domain', 'e.g. homes.example.com, pointed at this service.'),
      t('address', 'Address'),
      {
        key: 'projectLang',
        label: 'Page language',
        kind: [
          'select',
          [
            ['en', 'English'],
            ['fr', 'French'],
            ['es', 'Spanish'],
          ],
        ],
      },
      {
        key: 'timeZone',
        label: 'Time zone',
        hint: 'Times in the project’s mail (a hold’s expiry) and hold leads read in it; visitors see their own.',
        kind: ['select', TIME_ZONES],
      },
      { key: 'websiteURL', label: 'Website', kind: 'url', hint: "A “Developer's website” link in the page's hero." },
      {
        key: 'internalURL',
        label: 'Internal link',
        kind: 'url',
        hint: 'Your team’s own page about the project (CRM, shared drive): linked beside its name here, never on the page.',
      },
      t('projectType', 'Project type', 'For your own lists (the API filters projects by it); not shown on the page.'),
      t('propertyType', 'Property type', "Shown in the page's hero, under the address (e.g. Condominium)."),
      t('areaUnit', 'Area unit', 'e.g. sq ft or m²'),
      {
        key: 'chargeCurrency',
        label: 'Currency',
        kind: ['select', CURRENCIES],
        hint: 'Every price on the page is written in it, and deposits are charged in it.',
      },
      {
        key: 'initialView',
        label: 'Page opens on',
        // The page's own views (web/app.ts `defaults`): any other value opens on the building too.
        kind: [
          'select',
          [
            ['List', 'The unit list'],
            ['Building', 'The building, floor by floor'],
            ['Plan', 'The first floor plan'],
          ],
        ],
      },
    ],
  },
  {
    id: 'branding',
    title: 'Branding and colours',
    intro: 'The preview beside these settings shows the page with them as you change them.',
    settings: [
      c('colorBase', 'Main colour'),
      c('colorHover', 'Hover'),
      c('colorButton', 'Buttons'),
      c('colorButtonText', 'Button text'),
      c('colorText', 'Text'),
      c('colorAccent', 'Prices'),
      c('colorAvailable', 'Available'),
      c('colorReserved', 'Reserved'),
      c('colorSold', 'Sold'),
    ],
  },
  {
    id: 'pictures',
    title: 'Pictures and brochure',
    intro: 'Drop files on a box or choose them; pictures are resized for each screen.',
    settings: [
      { key: 'projectImageUrl', label: 'Hero image', kind: 'image' },
      { key: 'sharePageLogo', label: 'Logo', kind: 'image' },
      { key: 'alternativeCovers', label: 'Gallery', kind: 'gallery' },
      { key: 'brochureAssets', label: 'Brochures', kind: 'documents' },
    ],
  },
  {
    id: 'display',
    title: 'What the page shows',
    settings: [
      b('showPrices', 'Show prices'),
      b('pricesStartingAt', 'Prices as “From …”'),
      b('showTaxes', 'Mention taxes'),
      b('priceBeforeTax', 'Prices are before tax'),
      b('showAvailability', 'Show availability'),
      b('hideSold', 'Hide sold units'),
      b('showAvailableFirst', 'Available units first'),
      b('hideArea', 'Hide areas'),
      b('hideBedrooms', 'Hide bedrooms'),
      b('showPriceFilter', 'Price filter'),
      b('showAreaFilter', 'Area filter'),
      b('showFloorOverview', 'Floor overview', 'every floor above the homes: how many are available, and its lowest price'),
      b('skipFloorStep', 'Skip the floor step'),
      b('showBranding', 'Show “Presentation by Showsuite”'),
      b('previewMode', 'Preview mode', 'not cached, not indexed by search engines'),
    ],
  },
  {
    id: 'layout',
    title: 'Layout and wording',
    intro: 'How the page lays itself out on a desktop (a phone keeps its own layout), and words for rentals and lots.',
    settings: [
      {
        key: 'styleNavigation',
        label: 'Floors',
        kind: [
          'select',
          [
            ['', 'In a row above the homes'],
            ['side', 'In a column beside the homes'],
          ],
        ],
      },
      {
        key: 'styleFilter',
        label: 'Filters',
        kind: [
          'select',
          [
            ['', 'In a row above the homes'],
            ['panel', 'Behind a Filters button, in a side panel'],
          ],
        ],
      },
      b('invertNav', 'Mirror the panels', 'the floors and the plan’s list on the other side'),
      {
        key: 'styleShapes',
        label: 'Corners',
        kind: [
          'select',
          [
            ['', 'Rounded'],
            ['square', 'Square'],
          ],
        ],
      },
      {
        key: 'styleBranding',
        label: '“Presentation by Showsuite” line',
        kind: [
          'select',
          [
            ['', 'Light'],
            ['dark', 'On a dark strip'],
          ],
        ],
      },
      t('phasePrefix', 'Before every unit’s name', 'e.g. “P2-” shows unit A1 as P2-A1 on the page.'),
      b('rentalObject', 'Homes for rent', 'prices “/ month”, an Apply button, no purchase calculator'),
      b('landOnly', 'Lots (land only)', 'lot area; no bedrooms or bathrooms'),
    ],
  },
  {
    id: 'forms',
    title: 'Enquiry forms and lead e-mails',
    settings: [
      b('enableForms', 'Visitors can send enquiries'),
      { key: 'formsSendTo', label: 'Send enquiries to (e-mail)', kind: 'email' },
      t('formsSubject', 'Subject of those e-mails'),
      t('formsFromName', 'Sender name'),
      { key: 'formsMessage', label: 'Confirmation sent to the visitor', kind: 'long' },
      { key: 'formsRedirectURL', label: 'After sending, go to', kind: 'url' },
      { key: 'reportSendTo', label: 'Reports to (e-mail)', kind: 'email' },
      b('customFormEnabled', 'Extra questions on the form'),
    ],
  },
  {
    id: 'holds',
    title: 'Holds',
    settings: [b('onHoldExperienceEnabled', 'Visitors can hold a unit'), { key: 'onHoldMinsDuration', label: 'A hold lasts (minutes)', kind: 'number' }],
  },
  {
    id: 'lock',
    title: 'Lock screen',
    intro: 'A welcome form before the units: a way to collect leads, not access control.',
    settings: [
      b('lockScreen', 'Show the lock screen'),
      b('lockScreenName', 'Ask for the name'),
      b('lockScreenEmail', 'Ask for the e-mail'),
      b('lockScreenPhone', 'Ask for the phone'),
      b('lockScreenMessage', 'Ask for a message'),
      b('lockScreenCustom', 'Ask our own questions', 'the answers are kept on the lead, made when the name, e-mail and phone are asked'),
      { key: 'lockScreenCustomQuestions', label: 'Own questions', kind: 'questions' },
    ],
  },
  {
    id: 'waitlist',
    title: 'Waitlist',
    settings: [
      b('waitlistEnabled', 'Visitors can join a waitlist'),
      b('priorityList', 'A unit that frees up goes to its waiting list first', 'a priority hold for the first in line; with holds on'),
      b('specialRankEnabled', 'The team may reorder waiting lists', 'on the Launch tab; otherwise first come, first served'),
    ],
  },
  {
    id: 'sharing',
    title: 'Sharing',
    settings: [b('sharePageEnabled', 'Link previews (Open Graph)'), { key: 'sharePageDescription', label: 'Description', kind: 'long' }],
  },
  {
    id: 'tags',
    title: 'Tag manager',
    intro: 'Code added to the page as is: only paste snippets you trust.',
    settings: [
      b('gtmEnabled', 'Use the tag manager'),
      { key: 'gtmHeadCode', label: 'Code in <head>', kind: 'long' },
      { key: 'gtmBodyCode', label: 'Code at the start of <body>', kind: 'long' },
    ],
  },
  {
    id: 'integrations',
    title: 'Integrations',
    intro: 'Passwords and keys are never shown again once saved: each says whether it is set.',
    managers: true,
    settings: [],
    integrations: [
      {
        name: 'Inventory feed (FTP, FTPS, SFTP)',
        state: 'connected',
        settings: [
          t('ftpUrl', 'Inventory feed server', 'host name or ftp://, ftps://, sftp:// address'),
          { key: 'ftpPort', label: 'Feed port', kind: 'number' },
          s('ftpUsername', 'Feed user name'),
          s('ftpPassword', 'Feed password'),
          t('ftpPath', 'Feed folder'),
          t('ftpFileName', 'Feed file name'),
          t('ftpWhitelist', 'Only units named', 'comma-separated, * matches anything'),
          t('ftpBlacklist', 'Skip units named'),
        ],
      },
      {
        name: 'Yardi RENTCafé',
        id: 'rentcafe',
        state: 'availability',
        settings: [t('yiCompanyCode', 'Yardi company code'), t('yiPropertyCode', 'Yardi property code'), s('yiApiToken', 'Yardi API token')],
      },
      {
        name: 'Cal.com',
        id: 'cal',
        state: 'bookings',
        settings: [t('calUsername', 'Cal.com user name', 'its booking page opens from Book a visit'), s('calKey', 'Cal.com webhook secret')],
      },
      {
        name: 'Salesforce',
        id: 'salesforce',
        state: 'crm',
        settings: [
          t('sfProjectId', 'Salesforce campaign id', 'leads are added to this campaign'),
          s('sfKey', 'Salesforce key'),
          s('sfSecret', 'Salesforce secret'),
        ],
      },
      {
        name: 'Zoho CRM',
        id: 'zoho',
        state: 'crm',
        settings: [
          t('zhClientId', 'Zoho client id'),
          t('zhOrgId', 'Zoho organisation'),
          s('zhClientSecret', 'Zoho client secret'),
          s('zhAccessToken', 'Zoho refresh token'),
        ],
      },
      {
        name: 'Spark',
        id: 'spark',
        state: 'crm',
        settings: [t('srBaseUrl', 'Spark API address', 'https://api.spark.re/v2'), s('srToken', 'Spark API key')],
      },
      {
        name: 'Building Stack',
        state: 'custom',
        settings: [t('bsBuildingId', 'Building Stack building'), t('bsUsername', 'Building Stack user'), s('bsPassword', 'Building Stack password')],
      },
      { name: 'PV', state: 'custom', settings: [t('pvUsername', 'PV user'), t('pvBuildingName', 'PV building'), s('pvPassword', 'PV password')] },
      {
        name: 'Sales office',
        state: 'custom',
        settings: [
          t('soProjectId', 'Sales office project'),
          t('soDomain', 'Sales office domain'),
          s('soKey', 'Sales office key'),
          s('soSecret', 'Sales office secret'),
        ],
      },
    ],
  },
];

const CLEAR = Symbol('clear');
type Draft = Record<string, unknown>;

export function Settings({ project, user, onSaved, onReload }: { project: Project; user: User; onSaved: (p: Project) => void; onReload: () => void }) {
  const [draft, setDraft] = useState<Draft>({});
  const [error, setError] = useState<unknown>();
  const [conflict, setConflict] = useState(false);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const manager = canManage(project, user);
  const current: Partial<Record<Key, unknown>> = project;
  const value = (k: Key) => (k in draft ? draft[k] : current[k]);
  const set = (k: Key, v: unknown) => {
    setSaved('');
    setDraft((d) => {
      const next = { ...d };
      if (v === current[k] || (v === '' && current[k] === undefined)) delete next[k];
      else next[k] = v;
      return next;
    });
  };
  const changed = Object.keys(draft);
  // What the page's preview draws over the saved settings: every unsaved change but a cleared secret (the page has none).
  const shown = useMemo(() => Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== CLEAR)), [draft]);

  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setConflict(false);
    setBusy(true);
    const body: Draft = {};
    for (const [k, v] of Object.entries(draft)) body[k] = v === CLEAR ? null : v;
    try {
      const next = await api.patch(`/projects/${project._id}`, { body, ifMatch: etagOf(project) });
      setDraft({});
      setSaved(`Saved ${changed.length} change${changed.length === 1 ? '' : 's'}.`);
      onSaved(next);
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) setConflict(true);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="settings" onSubmit={save}>
      <PageTitle>Settings</PageTitle>
      <PagePreview projectId={project._id} draft={shown} version={project.__v} />
      <nav class="toc" aria-label="Setting groups">
        {GROUPS.filter((g) => !g.managers || manager).map((g) => (
          <a key={g.id} href={`#set-${g.id}`}>
            {g.title}
          </a>
        ))}
      </nav>
      {GROUPS.filter((g) => !g.managers || manager).map((g) => (
        <SettingGroup key={g.id} group={g} project={project} value={value} set={set} />
      ))}
      <SaveBar
        conflict={conflict}
        error={error}
        saved={saved}
        changed={changed.length}
        busy={busy}
        onReload={() => {
          setConflict(false);
          onReload();
        }}
        onDiscard={() => setDraft({})}
      />
    </form>
  );
}

type SettingGroupProps = {
  group: (typeof GROUPS)[number];
  project: Project;
  /** A setting's value: the draft's where changed, else the project's. */
  value: (key: Key) => unknown;
  set: (key: Key, v: unknown) => void;
};

function SettingGroup({ group: g, project, value, set }: SettingGroupProps) {
  return (
    <fieldset id={`set-${g.id}`} class="group">
      <legend>{g.title}</legend>
      {g.intro && <p class="muted">{g.intro}</p>}
      <div>
        <div class={g.id === 'pictures' ? 'media-grid' : 'grid-fields'}>
          {g.settings.map((x) => (
            <SettingInput
              key={`${x.key}-${project.__v}`}
              setting={x.key === 'chargeCurrency' ? { ...x, hint: currencyHint(project, value('chargeCurrency')) } : x}
              value={value(x.key)}
              configured={project.configuredSecrets.includes(x.key)}
              onValue={(v) => set(x.key, v)}
            />
          ))}
        </div>
      </div>
      {g.integrations && <Integrations list={g.integrations} project={project} value={value} set={set} />}
    </fieldset>
  );
}

/** The integrations' sections: each one's fields, and for those the service knows, its live state and test. */
function Integrations({
  list,
  project,
  value,
  set,
}: {
  list: Integration[];
  project: Project;
  value: (key: Key) => unknown;
  set: (key: Key, v: unknown) => void;
}) {
  const live = useIntegrationStates(project._id);
  return (
    <>
      {list.map((i) => (
        <section key={i.name} class="integration" aria-label={i.name}>
          <h3>
            {i.name} <span class={`badge integration-${i.state}`}>{STATE_LABEL[i.state]}</span>
          </h3>
          <p class="muted small">{STATE_WORDS[i.state]}</p>
          {i.state === 'bookings' && project.namespace && (
            <p class="muted small">
              Webhook address for Cal.com: <code>{`${location.origin}/public/projects/${project.namespace}/bookings`}</code>
            </p>
          )}
          {i.id && <IntegrationLive projectId={project._id} state={live.byName.get(i.id)} onTested={live.reload} />}
          <div class="grid-fields">
            {i.settings.map((x) => (
              <SettingInput
                key={`${x.key}-${project.__v}`}
                setting={x}
                value={value(x.key)}
                configured={project.configuredSecrets.includes(x.key)}
                onValue={(v) => set(x.key, v)}
              />
            ))}
          </div>
        </section>
      ))}
    </>
  );
}

/** Each integration's state in a word or three, and what it means for the sales team. */
const STATE_LABEL: Record<Integration['state'], string> = {
  connected: 'connected',
  crm: 'CRM',
  bookings: 'bookings',
  availability: 'availability and prices',
  stored: 'stored, not connected',
  custom: 'kept for a custom integration, sent nowhere',
};
const STATE_WORDS: Record<Integration['state'], string> = {
  connected: 'The service fetches the feed with these settings and applies it (Import tab, with each run’s changes and errors).',
  crm: 'Once its credentials are complete, every lead (enquiry, hold, waitlist, worksheet, deposit, booking) is sent here with its source and campaign, and updated when the team changes it; a vendor that is down is retried, never losing a lead.',
  availability:
    'Once the company code, property code and token are set, each unit’s availability and price are pulled from RENTCafé on the feed’s schedule and when asked (Import tab: each pull’s changes and errors); units are matched by name, and RENTCafé’s statuses are read through the status mapping.',
  bookings:
    'With a user name, the buyer’s page offers “Book a visit” (the Cal.com booking page, in a new tab). Add a Cal.com webhook to the address below for Booking Created, Rescheduled and Cancelled, with the webhook secret as its secret: each booking becomes a lead (source booking), moved or cancelled with it.',
  stored: 'Kept, keys and passwords sealed; this service does not call this vendor yet: nothing is pulled from it.',
  custom: 'Kept for an integration of your own, keys and passwords sealed; this service calls no vendor with them.',
};

/** The currency setting's hint: where the payment provider's currency (set through the API) wins, it says so. */
function currencyHint(project: Project, chosen: unknown): string {
  const provider = project.payProviderCurrency;
  if (typeof provider === 'string' && /^[a-z]{3}$/i.test(provider) && provider.toLowerCase() !== fieldText(chosen).toLowerCase())
    return `The page writes prices in ${provider.toUpperCase()}, the payment provider's currency (payProviderCurrency), which comes first.`;
  return 'Every price on the page is written in it, and deposits are charged in it.';
}

type SaveBarProps = { conflict: boolean; error: unknown; saved: string; changed: number; busy: boolean; onReload: () => void; onDiscard: () => void };

/** Stays at the bottom of the screen: what is unsaved, Save and Discard, and what went wrong. */
function SaveBar({ conflict, error, saved, changed, busy, onReload, onDiscard }: SaveBarProps) {
  return (
    <div class="savebar">
      {conflict && (
        <Notice kind="warn">
          Someone else changed this project since you opened it, so nothing was saved. Your edits are still here.{' '}
          <button type="button" class="link" onClick={onReload}>
            Load their version (keeps your edits on top)
          </button>
        </Notice>
      )}
      <ErrorNotice error={error} />
      <Notice kind="ok">{saved}</Notice>
      <span class="muted" aria-live="polite">
        {changed ? `${changed} unsaved change${changed === 1 ? '' : 's'}` : 'No unsaved changes'}
      </span>
      <button type="submit" disabled={!changed || busy}>
        {busy ? 'Saving…' : 'Save changes'}
      </button>
      <button type="button" class="secondary" disabled={!changed} onClick={onDiscard}>
        Discard
      </button>
    </div>
  );
}

function SettingInput({ setting, value, configured, onValue }: { setting: Setting; value: unknown; configured: boolean; onValue: (v: unknown) => void }) {
  const { key, label, kind, hint } = setting;
  const id = useId();
  if (kind === 'bool') return <Toggle label={label} checked={value === true} onChange={onValue} {...(hint ? { hint } : {})} />;
  if (kind === 'long') return <TextArea label={label} value={value as string | undefined} onValue={onValue} />;
  if (Array.isArray(kind)) {
    const v = fieldText(value ?? kind[1][0][0]);
    // A value set through the API that the list does not name is shown as it is, not as the first choice.
    const options = kind[1].some(([o]) => o === v) ? kind[1] : [...kind[1], [v, v] as [string, string]];
    return <Select label={label} value={v} options={options} onValue={onValue} hint={hint} />;
  }
  if (kind === 'number')
    return <Field label={label} type="number" value={value as number | undefined} onValue={(v) => onValue(v === '' ? undefined : Number(v))} />;
  if (kind === 'color') {
    const v = typeof value === 'string' ? value : '';
    return (
      <div class="field colour">
        <label for={id}>{label}</label>
        <div class="row">
          <input
            type="color"
            aria-label={`${label} picker`}
            value={/^#[0-9a-f]{6}$/i.test(v) ? v : (DEFAULTS[key] ?? '#000000')}
            onInput={(e) => onValue((e.target as HTMLInputElement).value)}
          />
          <input
            id={id}
            value={v}
            placeholder={`default ${DEFAULTS[key] ?? ''}`.trim()}
            onInput={(e) => onValue((e.target as HTMLInputElement).value)}
            pattern="#[0-9a-fA-F]{3,8}"
          />
        </div>
      </div>
    );
  }
  if (kind === 'image') return <MediaField label={label} kind="image" value={value as string | undefined} onValue={onValue} />;
  if (kind === 'gallery' || kind === 'documents')
    return <MediaList label={label} kind={kind === 'gallery' ? 'image' : 'document'} value={value as string[] | undefined} onValue={onValue} />;
  if (kind === 'questions') return <LockQuestions value={value} onValue={onValue} />;
  if (kind === 'secret') return <SecretInput label={label} value={value} configured={configured} onValue={onValue} />;
  return (
    <Field
      label={label}
      type={kind === 'email' ? 'email' : kind === 'url' ? 'url' : 'text'}
      value={value as string | undefined}
      onValue={onValue}
      {...(hint ? { hint } : {})}
    />
  );
}

/** Write-only: shows "set"/"not set", never a value; Replace opens an input, Clear sends null. */
function SecretInput({ label, value, configured, onValue }: { label: string; value: unknown; configured: boolean; onValue: (v: unknown) => void }) {
  const [editing, setEditing] = useState(false);
  const id = useId();
  const cleared = value === CLEAR;
  const state = cleared ? 'will be cleared' : typeof value === 'string' ? 'will be replaced' : configured ? 'set' : 'not set';
  return (
    <div class="field secret">
      <span id={`${id}-l`} class="label">
        {label}: <strong class={`state ${configured && !cleared ? 'on' : ''}`}>{state}</strong>
      </span>
      {editing ? (
        <div class="row">
          <input
            id={id}
            type="password"
            autoComplete="off"
            aria-labelledby={`${id}-l`}
            value={typeof value === 'string' ? value : ''}
            onInput={(e) => onValue((e.target as HTMLInputElement).value || undefined)}
          />
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setEditing(false);
              onValue(undefined);
            }}
          >
            Cancel
          </button>
        </div>
      ) : (
        <div class="row">
          <button type="button" class="secondary" onClick={() => setEditing(true)} aria-describedby={`${id}-l`}>
            {configured ? 'Replace' : 'Set'}
          </button>
          {configured && !cleared && (
            <button type="button" class="secondary" onClick={() => onValue(CLEAR)} aria-describedby={`${id}-l`}>
              Clear
            </button>
          )}
          {cleared && (
            <button type="button" class="secondary" onClick={() => onValue(undefined)}>
              Keep it
            </button>
          )}
        </div>
      )}
    </div>
  );
}
