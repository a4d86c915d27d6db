/**
 * Field meanings for the document, from the "Meaning" column of the interface's record tables (and its groupings where it has no column),
 * and an example value made from each schema, so every operation shows one without a hand-kept copy.
 */
import { ObjectId } from './schemas.ts';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   an OpenAPI document is plain JSON walked by key; its shape is checked by redocly and test/openapi-conventions.test.ts */
type Json = Record<string, any>;

const COMMON: Record<string, string> = {
  _id: 'Unique identifier (24 lower-case hex characters), set by the server',
  __v: 'Version of the record, raised by every change; the ETag is `"<__v>"`',
  createdAt: 'When the record was created (ISO 8601, set by the server)',
  updatedAt: 'When the record last changed (ISO 8601, set by the server)',
  configuredSecrets: 'Names of the write-only secrets that are set (their values are never returned)',
  user: 'The owning user',
  name: 'Name',
  namespace: 'Lower-case slug naming the public page (unique)',
  hostName: 'Host name the public page is also served at (unique)',
  administrators: 'User ids of administrators',
  editors: 'User ids of editors',
  invites: 'Pending invitations',
  address: 'Physical address',
  lon: 'Longitude',
  lat: 'Latitude',
  perimeter: 'Perimeter of the area (drawing path)',
  path: 'Drawing path',
  alternativePaths: 'Alternative paths (drawing)',
  images: 'Image URLs',
  finishes: 'Finishes',
  websiteURL: 'Website URL',
  internalURL: 'Internal management URL',
  accentColor: 'Accent colour',
  zoomLevel: 'Default map zoom level',
  markerImageUrl: 'Map marker image URL',
  targetMarker: 'Target marker identifier',
  mapStyle: 'Map style (default `Light`)',
  mapPointColor: 'Colour of map points',
  initialView: 'Initial view (default `List`)',
  unitImageOnGrid: 'Image type on the grid (default `Unit Plan`)',
  alternativeCovers: 'Alternative cover images',
  theme: 'Theme',
  svgGroupId: 'SVG group identifier',
  project: 'The project this record belongs to',
  position: 'Position or order',
  floor: 'The floor the unit is on',
  description: 'Description',
};

const BY_SCHEMA: Record<string, Record<string, string>> = {
  Unit: {
    name: 'Name of the unit',
    bedrooms: 'Number of bedrooms (text, e.g. `2` or `Studio`)',
    squareFeet: 'Area',
    isFeatured: 'Featured flag',
    price: 'Price (left out of public answers when the project hides prices)',
    unitPriceTBD: 'Price is to be determined',
    type: 'Type of the unit',
    specificType: 'Specific type, for example amenities or parkings; the value `unit` applies when not specified',
    floor: 'Associated floor: the floor the unit is on',
    path: 'Detail path (drawing)',
    lotPath: 'Lot path (drawing)',
    unitImageUrl: 'Image URL',
    onHoldExpiresAt: 'Expiry of the hold status: when the current hold ends (only while on_hold)',
    layoutUrl: 'Layout URL',
    layoutGallery: 'Layout images',
    downloadableAsset: 'URL of a downloadable asset',
    brochurePDF: 'URL of the brochure PDF',
    additionalInfo: 'Extra information as label/value pairs',
    embedCode: 'Embed code',
    customButtonUrl: 'Custom button URL and snippet: the URL (empty unless set)',
    customButtonSnippet: 'Custom button URL and snippet: the snippet (empty unless set)',
    payableAmount: 'Payable amount (a deposit; shown even when prices are hidden)',
    clonedImages: 'Cloned image URLs',
    customFinishes:
      'Finish options per room and the default choice: `type` {`name` string, `options` {`kitchen`, `bathroom`, `general`, each {`tabs` array of {`label`, `cover`, `thumbnail` strings}}}} and `default` object',
    clonedFinishes: 'Cloned finishes',
    parking: 'Counts: the number of parking spaces',
    bathrooms: 'Counts: the number of bathrooms',
    orientation: "Orientation (one of the unit's texts)",
    inclusions: "Inclusions (one of the unit's texts)",
    deliveryDate: "Delivery date (one of the unit's texts: free text, not a date-time)",
    description: "Description (one of the unit's texts)",
    lon: 'Longitude (location)',
    lat: 'Latitude (location)',
    unitmodels: 'References to unit models',
    svgLotId: 'SVG id of the lot',
    position: 'Position or order within the floor',
  },
  Floor: {
    units: "Associated units: the floor's units in position order (kept by the server; a PATCH may reorder them)",
    project: 'Associated project: the project the floor belongs to',
    name: 'Name of the floor',
    position: 'Position or order; floors are listed by it',
    floorplanUrl: 'Floorplan image URL',
    path: 'Floor drawing path',
  },
  Group: {
    name: 'Name of the group',
    projects: "Associated projects: the group's projects, in order (only projects the caller can see)",
    invites: 'Invited users: pending invitations to the group',
    perimeter: 'Perimeter of the group area (drawing path)',
    internalURL: 'Internal URL (for management)',
    groupLang: 'Language (default `en`)',
    linkBehavior: 'Default link behaviour (default `Service`)',
    groupImageUrl: 'Image URL',
    groupSVGUrl: 'SVG URL',
  },
  Lead: {
    firstName: 'First name',
    lastName: 'Last name',
    email: 'E-mail address',
    phone: 'Phone number',
    unit: 'Unit associated with the lead (as the visitor sent it; a hold names the unit by id)',
    message: 'Message',
    source: 'Where the lead came from (`presentation`, `hold`, `waitlist`, …)',
    questions: 'Answers to the lock-screen questions',
    customFields: "Answers to the project's custom form fields",
    createdAt: 'When the lead was left',
    updatedAt: 'Equal to createdAt: a lead never changes',
  },
  PublicLeadInput: {
    project: 'The project the enquiry is for, by id (or name it by `namespace`)',
    namespace: 'The project the enquiry is for, by namespace: the slug of its public page (or name it by `project`)',
    source: 'Where the lead came from (default `presentation`)',
  },
  Invite: {
    firstName: 'First name of the invitee',
    lastName: 'Last name of the invitee',
    email: 'E-mail address the invitation goes to',
    level: 'Level the invitee gets: administrator or editor',
    expiresAt: 'When the invitation link stops working',
  },
  Project: {
    name: 'Name of the project',
    user: 'The owning user (only the owner may change it)',
    floors: "The project's floors in position order (kept by the server; a PATCH may reorder them)",
    commercialSpaces: 'Commercial spaces (record ids)',
    formsSendTo: 'E-mail address to send forms to: one or more, separated by commas; enquiries go there',
    reportSendTo: 'E-mail addresses (comma-separated) reports are sent to',
    formsRedirectURL: 'Redirect after form submission: where the page goes after a form is sent',
    crfMessage: 'Custom form message',
    gtmHeadCode: 'Tag-manager snippets: the one for the head (served only with gtmEnabled)',
    gtmBodyCode: 'Tag-manager snippets: the one for the body (served only with gtmEnabled)',
    onHoldMinsDuration: 'How long a public hold lasts, in minutes (default 5)',
    onHoldExperienceEnabled: 'Visitors may hold available units',
    enableForms: 'The page takes enquiries',
    waitlistEnabled: 'The page takes waitlist sign-ups',
    showPrices: 'Prices are shown to visitors',
    hideSold: 'Sold units are left out of the public page',
    previewMode: 'The page is a preview (not cached, not indexed)',
    published:
      'false: a draft: its page, bundle, live feed, forms and holds answer 404 and group pages leave it out; its team opens it through GET /projects/{id}/preview-link. Absent means true',
    lockScreen: 'Visitors leave their details before seeing the page',
    projectType: 'Kind of project (filters match it exactly)',
    leads: 'Not embedded: read leads through GET /leads (accepted and ignored in a PATCH)',
    waitlistees: 'Not embedded: read through GET /leads (accepted and ignored in a PATCH)',
    allocations: 'Allocations: name, write-only password, allocation',
    customFinishes: 'Finish options per room',
    lockScreenCustomQuestions: 'Lock-screen questions per language',
    ftpMapping: 'Inventory file headers mapped to Unit fields',
    yiStatusMapping: 'External status strings for the five availability names',
    customFormFields: 'Fields of the custom enquiry form',
    plan: 'Subscription plan',
    lastSync: 'When the last inventory import was applied',
  },
};

/**
 * The interface description's words for each field: the "Meaning" column of its Group, Floor and Unit tables, the note in Lead's
 * type column, and the notes in brackets of Project's lists (split one part per field where a row names several
 * fields and as many meanings). Every description contains its field's words; test/openapi-conventions.test.ts
 * holds the document to those words (test/support/field-meanings.json).
 */
const SPEC_MEANINGS: Record<string, Record<string, string>> = {
  Project: {
    user: 'owning user',
    internalURL: 'internal management URL',
    formsSendTo: 'e-mail address to send forms to',
    formsRedirectURL: 'redirect after form submission',
    crfMessage: 'custom form message',
    gtmBodyCode: 'tag-manager snippets',
    gtmHeadCode: 'tag-manager snippets',
  },
  Floor: {
    _id: 'identifier',
    project: 'associated project',
    units: 'associated units',
    name: 'name',
    position: 'position or order',
    floorplanUrl: 'floorplan image URL',
    path: 'floor drawing path',
    alternativePaths: 'alternative paths',
  },
  Unit: {
    _id: 'identifier',
    floor: 'associated floor',
    name: 'name',
    bedrooms: 'number of bedrooms',
    squareFeet: 'area',
    isFeatured: 'featured flag',
    price: 'price',
    unitPriceTBD: 'price is to be determined',
    type: 'type of the unit',
    specificType: 'specific type, for example amenities or parkings; the value `unit` applies when not specified',
    availability: 'availability status',
    path: 'detail path',
    lotPath: 'lot path',
    unitImageUrl: 'image URL',
    onHoldExpiresAt: 'expiry of the hold status',
    layoutUrl: 'layout URL',
    layoutGallery: 'layout images',
    downloadableAsset: 'URL of a downloadable asset',
    brochurePDF: 'URL of the brochure PDF',
    additionalInfo: 'extra information',
    embedCode: 'embed code',
    customButtonUrl: 'custom button URL and snippet',
    customButtonSnippet: 'custom button URL and snippet',
    payableAmount: 'payable amount',
    images: 'image URLs',
    clonedImages: 'image URLs',
    customFinishes:
      '`type` {`name` string, `options` {`kitchen`, `bathroom`, `general`, each {`tabs` array of {`label`, `cover`, `thumbnail` strings}}}} and `default` object',
    finishes: 'finishes',
    clonedFinishes: 'finishes',
    parking: 'counts',
    bathrooms: 'counts',
    orientation: 'texts',
    inclusions: 'texts',
    deliveryDate: 'texts',
    description: 'texts',
    unitmodels: 'references to unit models',
    lon: 'location',
    lat: 'location',
    perimeter: 'perimeter',
    svgLotId: 'SVG id of the lot',
  },
  Group: {
    _id: 'identifier',
    user: 'owning user',
    name: 'name',
    websiteURL: 'website URL',
    projects: 'associated projects',
    namespace: 'namespace',
    hostName: 'host name',
    groupLang: 'language',
    linkBehavior: 'default link behaviour',
    accentColor: 'accent colour',
    groupImageUrl: 'image URL',
    groupSVGUrl: 'SVG URL',
    svgGroupId: 'SVG group identifier',
    address: 'physical address',
    lon: 'longitude',
    lat: 'latitude',
    zoomLevel: 'default map zoom level',
    administrators: 'user ids',
    editors: 'user ids',
    invites: 'invited users',
    perimeter: 'perimeter of the group area',
    markerImageUrl: 'marker image URL',
    targetMarker: 'target marker identifier',
    mapStyle: 'map style',
    mapPointColor: 'colour of map points',
    initialView: 'initial view',
    unitImageOnGrid: 'image type on the grid',
    internalURL: 'internal URL',
    alternativeCovers: 'alternative cover images',
    theme: 'theme',
    colorBase: 'colours',
    colorAccent: 'colours',
    colorHover: 'colours',
    colorButton: 'colours',
    colorButtonText: 'colours',
    colorText: 'colours',
    showAvailableFirst: 'display switches',
    showAllUnits: 'display switches',
    showPrices: 'display switches',
    pricesStartingAt: 'display switches',
    showTaxes: 'display switches',
    priceBeforeTax: 'display switches',
    showAvailability: 'display switches',
    hideSold: 'display switches',
    deliveryDates: 'display switches',
    hideArea: 'display switches',
    showBranding: 'display switches',
    showPriceFilter: 'display switches',
    showAreaFilter: 'display switches',
    showFloorOverview: 'display switches',
  },
  Lead: {
    unit: 'unit associated with the lead',
  },
};

/** Input schemas whose fields mean what the record's do. */
const DESCRIBED_AS: Record<string, string> = { LeadInput: 'Lead', PublicLeadInput: 'Lead' };

const PROVIDERS: Record<string, string> = {
  cal: 'calendar booking',
  payProvider: 'payments',
  yi: 'inventory system (yi)',
  pv: 'inventory system (pv)',
  zh: 'CRM (zh)',
  sr: 'CRM (sr)',
  sf: 'CRM (sf)',
  so: 'CRM (so)',
  bs: 'inventory system (bs)',
  ftp: 'inventory feed',
};

const words = (key: string) =>
  key
    .replace(/^_/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/URL|Url/g, 'URL')
    .toLowerCase();

/** The interface description's words for a field of a record schema, when it gives some. */
export const specMeaning = (schemaName: string, key: string): string | undefined => SPEC_MEANINGS[schemaName]?.[key];

/**
 * The description of a field of a record schema: the schema's own, else the one above; either way holding the
 * spec's words for the field, put in front when the description does not already say them.
 */
export function recordFieldDescription(schemaName: string, key: string, schema: Json): string {
  // Ours for this record first; then the schema's own, unless it is only the generic id text; then the general rules.
  const specific = BY_SCHEMA[schemaName]?.[key] ?? BY_SCHEMA[DESCRIBED_AS[schemaName] ?? '']?.[key];
  const given = typeof schema.description === 'string' && schema.description !== ObjectId.description ? schema.description : undefined;
  const own = specific ?? (given || describeField(schemaName, key, schema));
  const meaning = specMeaning(schemaName, key);
  if (!meaning || own.toLowerCase().includes(meaning.toLowerCase())) return own;
  return `${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}: ${own.charAt(0).toLowerCase()}${own.slice(1)}`;
}

/** The meaning of a field of a record schema: ours, else what its group in the spec says it is. */
export function describeField(schemaName: string, key: string, schema: Json): string {
  const known = BY_SCHEMA[schemaName]?.[key] ?? BY_SCHEMA[DESCRIBED_AS[schemaName] ?? '']?.[key] ?? COMMON[key];
  if (known) return known;
  const provider = Object.keys(PROVIDERS).find((p) => key.startsWith(p) && /^[A-Z]/.test(key.slice(p.length)));
  if (provider) return `${PROVIDERS[provider]} integration setting: ${words(key.slice(provider.length))}`;
  if (/^color/.test(key)) return `Colours: ${words(key.slice(5))}`;
  if (/^style/.test(key)) return `Style: ${words(key.slice(5))}`;
  if (schema.type === 'boolean') return `One of the display switches: ${words(key)} (absent reads as false)`;
  return `${words(key).charAt(0).toUpperCase()}${words(key).slice(1)}`;
}

const SAMPLES: Record<string, unknown> = {
  name: 'Tower A',
  username: 'ana@example.com',
  password: 'correct horse battery',
  email: 'ana@example.com',
  firstName: 'Ana',
  lastName: 'Ruiz',
  phone: '+1 555 0100',
  namespace: 'tower-a',
  hostName: 'tower-a.example.org',
  price: 450000,
  squareFeet: 850,
  bedrooms: '2',
  availability: 'available',
  message: 'Is the corner unit still available?',
};
const KEPT = new Set(['_id', '__v', 'createdAt', 'updatedAt']);
const OBJECT_ID = '65f0c0ffee00000000000001';
const DATE = '2026-03-01T09:30:00.000Z';

function fits(value: string, s: Json) {
  if (s.minLength !== undefined && value.length < s.minLength) return false;
  if (s.maxLength !== undefined && value.length > s.maxLength) return false;
  return s.pattern === undefined || new RegExp(s.pattern as string, 'u').test(value);
}

function exampleString(s: Json, key: string | undefined): string | undefined {
  if (s.format === 'date-time') return DATE;
  if (s.format === 'email') return 'ana@example.com';
  if (s.format === 'uri') return 'https://example.org/a.png';
  const sample = key !== undefined ? SAMPLES[key] : undefined;
  // A pattern that opens with a literal prefix (`^whsec_`) takes that prefix and a word.
  const prefix = typeof s.pattern === 'string' ? /^\^([A-Za-z0-9_]+)/.exec(s.pattern)?.[1] : undefined;
  for (const c of [sample, OBJECT_ID, 'example', 'example.org', 'available', 'a', prefix && `${prefix}c2VjcmV0`])
    if (typeof c === 'string' && fits(c, s)) return c;
  if (s.minLength !== undefined) return 'x'.repeat(s.minLength as number);
  return undefined;
}

/** The component name a `$ref` points at (`#/components/schemas/Unit` → `Unit`). */
export const refName = (ref: unknown) => String(ref).slice(String(ref).lastIndexOf('/') + 1);

/** A value valid for `schema`: required properties always, a few telling optional ones, one item per array. */
export function exampleOf(schema: Json | undefined, doc: Json, key?: string, depth = 0, request = false): unknown {
  if (!schema || depth > 12) return undefined;
  if (schema.$ref) return exampleOf(doc.components.schemas[refName(schema.$ref)], doc, key, depth + 1, request);
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (options) return exampleOf(options.find((o) => o.type !== 'null') ?? options[0], doc, key, depth + 1, request);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  const sample = key !== undefined ? SAMPLES[key] : undefined;
  switch (type) {
    case 'string':
      return exampleString(schema, key);
    case 'integer':
    case 'number':
      return typeof sample === 'number' ? sample : (schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'array': {
      const item = exampleOf(schema.items as Json, doc, undefined, depth + 1, request);
      return item === undefined ? [] : [item];
    }
    case 'object':
    case undefined: {
      if (!schema.properties) return type === 'object' ? {} : undefined;
      const out: Json = {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [k, s] of Object.entries<Json>(schema.properties)) {
        if (request && !required.has(k) && (KEPT.has(k) || s.readOnly)) continue;
        if (!required.has(k) && !(k in SAMPLES) && !KEPT.has(k) && k !== 'project') continue;
        const v = exampleOf(s, doc, k, depth + 1, request);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}
