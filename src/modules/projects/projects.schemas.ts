import { Type, type TProperties, type Static } from '@sinclair/typebox';
import { DateTime, ObjectId, Version } from '../../http/schemas.ts';
import { ListOptions, UpdatedSince } from '../shared/list.ts';
import { describedRecord, keyWords } from '../shared/described.ts';
import { HostName, Namespace, CustomFinishesType, Str, optional, strings } from '../shared/fields.ts';

/** Text fields of the interface's Project, stored in `data` unless they have a column (name, namespace, hostName, projectType). */
const TEXT = [
  'websiteURL',
  'internalURL',
  'accentColor',
  'walkscore',
  'customButtonText',
  'customButtonIcon',
  'areaUnit',
  'sharePageDescription',
  'sharePageLogo',
  'projectImageUrl',
  'projectSVGUrl',
  'svgGroupId',
  'layoutImageUrl',
  'formsSubject',
  'formsFromName',
  'formsMessage',
  'formsRedirectURL',
  'projectLang',
  'propertyType',
  'lotsLayout',
  'areaDescription',
  'enterpriseAddressDisplay',
  'crfMessage',
  'chargeDescription',
  'payButtonText',
  'payButtonIcon',
  'gtmHeadCode',
  'gtmBodyCode',
  'address',
  'perimeter',
  'markerImageUrl',
  'targetMarker',
  'mapPointColor',
  'sponsors',
  'layouts',
  'downloadableAssets',
  'floorplans',
  'path',
  'alternativePaths',
  'subscriptionItem',
  'lastSync',
  'eventsBlockList',
  'phasePrefix',
  '_3dModelUrl',
  '_3dBuildingModelUrl',
  '_3dFloorSelectorModelUrl',
  'customButtonOpensAt',
  'customButtonActionType',
  'initialView',
  'unitImageOnGrid',
  'similarSortingBy',
  'chargeType',
  'chargeCurrency',
  'mapStyle',
  'colorBase',
  'colorAccent',
  'colorHover',
  'colorButton',
  'colorButtonText',
  'colorText',
  'colorFeatured',
  'colorSold',
  'colorAvailable',
  'colorReserved',
] as const;

/**
 * The style fields and the values each takes (docs/fields.md says what each does); '' clears one back to the page's
 * default. Anything else is refused (400 naming the field and these values). `styleFont` names a Google Fonts family.
 */
export const STYLE_VALUES = {
  styleNavigation: ['top', 'side'],
  styleBranding: ['light', 'dark'],
  styleFilter: ['bar', 'panel'],
  styleShapes: ['rounded', 'square'],
  styleFont: [
    'Montserrat',
    'Inter',
    'Roboto',
    'Open Sans',
    'Lato',
    'Poppins',
    'Raleway',
    'Nunito',
    'Work Sans',
    'DM Sans',
    'Playfair Display',
    'Merriweather',
    'Lora',
    'Cormorant Garamond',
    'Libre Baskerville',
  ],
} as const;

const STYLE_TEXT: Record<keyof typeof STYLE_VALUES, string> = {
  styleNavigation: 'Where the floor navigation sits',
  styleBranding: 'The look of the service mark at the foot of the page',
  styleFilter: 'How the filters are laid out',
  styleShapes: 'Corners of cards, buttons and fields: rounded or square',
  styleFont: "The page's font, a Google Fonts family",
};

/** A style field: one of its values or '' (the default). The output says the same; a value stored before the check is returned as it is. */
const styleField = (key: keyof typeof STYLE_VALUES) =>
  Type.Unsafe<(typeof STYLE_VALUES)[typeof key][number] | ''>({
    type: 'string',
    enum: [...STYLE_VALUES[key], ''],
    description: `${STYLE_TEXT[key]}: one of ${STYLE_VALUES[key].join(', ')}, or '' for the page's default`,
  });

const EMAILS = ['formsSendTo', 'reportSendTo'] as const;

const NUMBERS = ['onHoldMinsDuration', 'mapLayoutWidth', 'mapLayoutRotation', 'globalAmount', 'zoomLevel', 'lon', 'lat'] as const;

const BOOLEANS = [
  'showInclusions',
  'showBathrooms',
  'showAdditionalInfo',
  'showParking',
  'showOrientation',
  'brochureButtonEnabled',
  'customButtonEnabled',
  'walkscoreEnabled',
  'showAvailability',
  'hideSold',
  'showPrices',
  'gtmEnabled',
  'dayNightEnabled',
  'showAvailableFirst',
  'skipFloorStep',
  'showUnitCustomFinishes',
  'showFloorOverview',
  'pricesStartingAt',
  'showPriceFilter',
  'showAreaFilter',
  'showUnitDescription',
  'showTaxes',
  'sharePageEnabled',
  'priceBeforeTax',
  'enableForms',
  'rentalObject',
  'deliveryDates',
  'hideArea',
  'showBranding',
  'onHoldExperienceEnabled',
  'customFormEnabled',
  'previewMode',
  'landOnly',
  'showUnitFinishes',
  'showVariants',
  'sponsorsEnabled',
  'waitlistEnabled',
  'invertNav',
  'mapDirections',
  'lockScreen',
  'specialRankEnabled',
  'priorityList',
  'lockScreenName',
  'lockScreenEmail',
  'lockScreenPhone',
  'lockScreenMessage',
  'lockScreenCustom',
  'excludeBlockedEvents',
  'enable3d',
  'hideGallery',
  'hideBedrooms',
  'published',
] as const;

const STRING_ARRAYS = ['brochureAssets', 'alternativeCovers', 'images', 'finishes'] as const;

/** Integration settings (owner and administrators only; never public). Non-secret ones are readable. */
const INTEGRATION_TEXT = [
  'calUsername',
  'payProviderClientId',
  'payProviderCurrency',
  'yiCompanyCode',
  'yiPropertyCode',
  'pvUsername',
  'pvBuildingName',
  'zhClientId',
  'zhOrgId',
  'srBaseUrl',
  'sfProjectId',
  'soProjectId',
  'soDomain',
  'bsBuildingId',
  'bsUsername',
  'ftpUrl',
  'ftpWhitelist',
  'ftpBlacklist',
  'ftpPath',
  'ftpFileName',
] as const;
const INTEGRATION_NUMBERS = ['payProviderDeposit', 'ftpPort'] as const;

/** Write-only fields: sealed with AES-256-GCM, never returned, named in `configuredSecrets`. */
export const PROJECT_SECRETS = [
  'pvPassword',
  'ftpPassword',
  'ftpUsername',
  'sfKey',
  'sfSecret',
  'soKey',
  'soSecret',
  'zhClientSecret',
  'zhAccessToken',
  'bsPassword',
  'yiApiToken',
  'srToken',
  'calKey',
] as const;

/** Each integration's field prefix and what it connects to. */
const INTEGRATIONS: Record<string, string> = {
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
export const INTEGRATION_PREFIXES = Object.keys(INTEGRATIONS);
/**
 * Prefixes of vendors not identified: their fields are credentials kept for a custom integration, sealed or stored,
 * and sent to no one (no webhook carries them).
 */
export const CUSTOM_INTEGRATION_PREFIXES = ['pv', 'so', 'bs'] as const;
export const isCustomIntegrationField = (key: string) => CUSTOM_INTEGRATION_PREFIXES.some((p) => key.startsWith(p) && /[A-Z]/.test(key.charAt(p.length)));
const integrationOf = (key: string) => INTEGRATION_PREFIXES.find((p) => key.startsWith(p) && /[A-Z]/.test(key.charAt(p.length)));
export const isIntegrationField = (key: string) => integrationOf(key) !== undefined;

const Tabs = Type.Object(
  {
    tabs: Type.Optional(
      Type.Array(Type.Object({ label: Type.Optional(Str), cover: Type.Optional(Str), thumbnail: Type.Optional(Str) }, { additionalProperties: false })),
    ),
  },
  { additionalProperties: false },
);

const AllocationIn = Type.Object(
  {
    name: Type.Optional(Str),
    password: Type.Optional(Type.Union([Str, Type.Null()], { writeOnly: true, description: 'Write-only: a string sets it, null clears it' })),
    allocation: Type.Optional(Str),
  },
  { additionalProperties: false },
);
const AllocationOut = Type.Object({ name: Type.Optional(Str), allocation: Type.Optional(Str) }, { additionalProperties: false });

/** The page's languages (web/i18n.ts): a lock-screen question is asked in one of them, or ('') in every one. */
const QUESTION_LANGS = ['en', 'fr', 'es', ''] as const;

/** The content fields kept in `data` (everything but identity, references and secrets). */
export const projectDataFields = {
  ...strings(TEXT),
  ...(Object.fromEntries(Object.keys(STYLE_VALUES).map((k) => [k, styleField(k as keyof typeof STYLE_VALUES)])) as Record<
    keyof typeof STYLE_VALUES,
    ReturnType<typeof styleField>
  >),
  // Comma-separated lists, each address checked.
  ...Object.fromEntries(
    EMAILS.map((k) => [k, Type.String({ format: 'email-list', maxLength: 4000, description: 'One or more e-mail addresses separated by commas' })]),
  ),
  timeZone: Type.String({ format: 'time-zone', maxLength: 100 }),
  ...Object.fromEntries(NUMBERS.map((k) => [k, Type.Number()])),
  ...Object.fromEntries(BOOLEANS.map((k) => [k, Type.Boolean()])),
  ...Object.fromEntries(STRING_ARRAYS.map((k) => [k, Type.Array(Str, { maxItems: 1000 })])),
  ...strings(INTEGRATION_TEXT),
  ...Object.fromEntries(INTEGRATION_NUMBERS.map((k) => [k, Type.Number()])),
  commercialSpaces: Type.Array(ObjectId, { maxItems: 10_000 }),
  customFormFields: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 200 }),
  plan: Type.Object({}, { additionalProperties: true }),
  invites: Type.Array(Type.Ref('Invite'), { maxItems: 1000 }),
  customFinishes: CustomFinishesType(Tabs),
  lockScreenCustomQuestions: Type.Array(
    Type.Object(
      {
        lang: Type.Optional(
          Type.Unsafe<(typeof QUESTION_LANGS)[number]>({
            type: 'string',
            enum: [...QUESTION_LANGS],
            description: "The page language the question is asked in (the two letters of `projectLang`: en, fr, es), or '' (or none) for every language",
          }),
        ),
        value: Type.String({ minLength: 1, maxLength: 500, description: 'The question, as the visitor reads it' }),
      },
      { additionalProperties: false },
    ),
    { maxItems: 20 },
  ),
  ftpMapping: Type.Array(Type.Object({ header: Type.Optional(Str), property: Type.Optional(Str) }, { additionalProperties: false }), { maxItems: 500 }),
  yiStatusMapping: Type.Object(
    { available: Type.Optional(Str), leased: Type.Optional(Str), sold: Type.Optional(Str), unavailable: Type.Optional(Str), reserved: Type.Optional(Str) },
    { additionalProperties: false },
  ),
} satisfies TProperties;

/** Columns: JSON field → how it is stored. */
const columnFields = {
  name: Type.String({ minLength: 1, maxLength: 300 }),
  namespace: Namespace('projects'),
  hostName: HostName('projects'),
  projectType: Type.String({ maxLength: 100 }),
  administrators: Type.Array(ObjectId, { maxItems: 500 }),
  editors: Type.Array(ObjectId, { maxItems: 500 }),
};

/** Payload-shape values of the interface, applied on create. */
export const PROJECT_DEFAULTS: Record<string, unknown> = {
  customButtonOpensAt: 'same_tab',
  customButtonActionType: 'url',
  initialView: 'List',
  unitImageOnGrid: 'Unit Plan',
  similarSortingBy: 'default',
  chargeType: 'same',
  chargeCurrency: 'usd',
  payButtonText: 'Pay Now',
  mapStyle: 'Light',
  onHoldMinsDuration: 5,
  zoomLevel: 0,
  chargeDescription: '',
  payButtonIcon: '',
  gtmHeadCode: '',
  gtmBodyCode: '',
  // Display switches, as the spec's group shape shows them.
  showAvailableFirst: false,
  pricesStartingAt: false,
  hideArea: false,
  showFloorOverview: false,
  showPrices: true,
  showTaxes: true,
  priceBeforeTax: true,
  showAvailability: true,
  hideSold: true,
  deliveryDates: true,
  showBranding: true,
  showPriceFilter: true,
  showAreaFilter: true,
};

/** Every integration setting says which integration it belongs to. */
const INTEGRATION_SETTINGS_TEXT = Object.fromEntries(
  [...INTEGRATION_TEXT, ...INTEGRATION_NUMBERS].map((key) => {
    const prefix = integrationOf(key) ?? '';
    return [key, `${INTEGRATIONS[prefix] ?? ''} integration setting: ${keyWords(key.slice(prefix.length))}`];
  }),
) as Record<(typeof INTEGRATION_TEXT)[number] | (typeof INTEGRATION_NUMBERS)[number], string>;

/** What a Project's fields mean where the common words (shared/described.ts) say too little or not what the interface says. */
const PROJECT_TEXT = {
  user: 'The owning user; a PATCH that sends another id is refused (400, the same for any id)',
  name: 'Name of the project',
  projectType: 'Kind of project (filters match it exactly)',
  formsRedirectURL: 'Redirect after form submission: where the page goes after a form is sent',
  crfMessage: 'Custom form message',
  gtmHeadCode: 'Tag-manager snippets: the one for the head (served only with gtmEnabled)',
  gtmBodyCode: 'Tag-manager snippets: the one for the body (served only with gtmEnabled)',
  lastSync: 'When the last inventory import was applied',
  formsSendTo: 'E-mail address to send forms to: one or more, separated by commas; enquiries go there',
  reportSendTo: 'E-mail addresses (comma-separated) reports are sent to',
  onHoldMinsDuration: 'How long a public hold lasts, in minutes (default 5)',
  timeZone:
    "The project's time zone, an IANA name (America/Toronto): times in the project's mail (a hold's expiry) and in its hold leads read in it. Absent: UTC",
  hideSold: 'Sold units are left out of the public page',
  showPrices: 'Prices are shown to visitors',
  enableForms: 'The page takes enquiries',
  onHoldExperienceEnabled: 'Visitors may hold available units',
  previewMode: 'The page is a preview (not cached, not indexed)',
  waitlistEnabled: 'The page takes waitlist sign-ups',
  lockScreen: 'Visitors leave their details before seeing the page',
  published:
    'false: a draft: its page, bundle, live feed, forms and holds answer 404 and group pages leave it out; its team opens it through GET /projects/{id}/preview-link. Absent means true',
  commercialSpaces: 'Commercial spaces (record ids)',
  customFormFields: 'Fields of the custom enquiry form',
  plan: 'Subscription plan',
  customFinishes: 'Finish options per room',
  lockScreenCustomQuestions:
    "The lock screen's own questions (with lockScreenCustom), each asked where the page is in its `lang`; the answers are kept on the lead as `questions` (up to 20 questions of 500 characters)",
  lockScreenCustom: 'The lock screen also asks lockScreenCustomQuestions',
  showFloorOverview: 'Every floor above the homes: its homes available of all, and its lowest price',
  ftpMapping: 'Inventory file headers mapped to Unit fields',
  yiStatusMapping: 'External status strings for the five availability names',
  ...INTEGRATION_SETTINGS_TEXT,
};

export const ProjectSchema = Type.Object(
  describedRecord(
    {
      _id: ObjectId,
      __v: Version,
      user: ObjectId,
      ...columnFields,
      namespace: Type.Optional(columnFields.namespace),
      hostName: Type.Optional(columnFields.hostName),
      projectType: Type.Optional(columnFields.projectType),
      ...optional(projectDataFields),
      allocations: Type.Optional(Type.Array(AllocationOut, { description: 'Allocations: name, write-only password, allocation' })),
      floors: Type.Array(ObjectId, { description: "The project's floors in position order (kept by the server; a PATCH may reorder them)" }),
      configuredSecrets: Type.Array(Type.String(), { description: 'Names of the write-only fields that are set' }),
      createdAt: DateTime,
      updatedAt: DateTime,
    },
    PROJECT_TEXT,
  ),
  { $id: 'Project', additionalProperties: false },
);

const secretInputs = Object.fromEntries(
  PROJECT_SECRETS.map((k) => [
    k,
    Type.Optional(
      Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], {
        writeOnly: true,
        description: 'Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets)',
      }),
    ),
  ]),
);

/** What a PATCH (and a create body) may carry: every field, secrets (null clears), and server-kept fields (ignored). */
export const ProjectPatchSchema = Type.Object(
  {
    ...optional(columnFields),
    ...optional(projectDataFields),
    ...secretInputs,
    allocations: Type.Optional(Type.Array(AllocationIn, { maxItems: 1000 })),
    user: Type.Optional(ObjectId),
    floors: Type.Optional(Type.Array(ObjectId, { maxItems: 10_000 })),
    leads: Type.Optional(Type.Array(Type.Ref('LeadInput'))),
    waitlistees: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    _id: Type.Optional(Type.String()),
    __v: Type.Optional(Type.Unknown()),
    createdAt: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Type.String()),
    configuredSecrets: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const ProjectCreateQuery = Type.Object(
  {
    name: Type.Optional(columnFields.name),
    namespace: Type.Optional(columnFields.namespace),
    hostName: Type.Optional(columnFields.hostName),
  },
  { additionalProperties: false },
);

export const ProjectListQuery = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 300, description: 'Case-insensitive substring of the name' })),
          projectType: Type.Optional(Type.String({ maxLength: 100, description: 'Exact projectType' })),
          updatedSince: Type.Optional(UpdatedSince),
        },
        { additionalProperties: false },
      ),
    ),
    options: Type.Optional(ListOptions),
  },
  { additionalProperties: false },
);

/** The named schemas ($id) of this module: src/app-modules.ts adds them at the root, where every scope and /openapi.json see them. */
export const PROJECT_SCHEMAS = [ProjectSchema];

/** Projects, as GET /projects lists them. */
export const ProjectArray = Type.Array(Type.Ref('Project'));

/** GET /projects/{id}/preview-link: a signed link to the project's page, draft or not. */
export const PreviewLinkSchema = Type.Object(
  {
    url: Type.String({ description: 'The page, with its preview token' }),
    expiresAt: { ...DateTime, description: 'When the link stops working' },
  },
  { additionalProperties: false },
);

/** The static types of this module's schemas (what handlers, services and the page work with). */
export type Project = Static<typeof ProjectSchema>;
export type ProjectCreateQuery = Static<typeof ProjectCreateQuery>;
export type ProjectListQuery = Static<typeof ProjectListQuery>;
