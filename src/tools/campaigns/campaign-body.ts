import { z } from 'zod';
import type { Config } from '../../config.js';
import { InputError, RefusedError } from '../../errors.js';
import { appId, text } from '../fields.js';
import { money } from '../format.js';
import { checkSettings, type MoneyValue } from './campaign-settings.js';
import { Problems } from './campaign-problems.js';
import { checkPlausibleDaily } from './campaign-view.js';
import { geoTargetProblems } from './geo-targets.js';

// Bounds on the inputs, so a warning that lists the whole request stays readable (and small).
const MAX_NAME = 255;
const MAX_URL = 2048;
const MAX_LIST = 50;
const MAX_IMAGES = 20;
/** Spec 4.2: up to 20 sitelinks. */
const MAX_SITELINKS = 20;

/** An array whose bound is ours: checked, not advertised; the check's message names it, and tools/list stays short. */
const list = <T extends z.ZodType>(item: T, max: number) => z.array(item).refine((items) => items.length <= max, { message: `at most ${max} items` });
/** An array whose bound the spec documents: advertised as maxItems, and the first check that meets it names it. */
const upTo = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max, { message: `at most ${max} items` });

/**
 * The inputs of create_ad_campaign and their mapping to the 4.2 request body, in one place.
 * Input names are the body names (service-facts.md says which are documented and which are our
 * choice). Required: campaign_name, campaign_type, daily_budget_micros, landing_page (the spec states
 * them); the spec does not show which others are required, so they are optional here and the ad
 * platform's 400 names anything it still needs. Descriptions say what a model needs to write a valid
 * call; rules planCampaign checks are left to its messages, which name the rule when it is broken.
 */
export const campaignInput = {
  app_id: appId,
  campaign_name: text(MAX_NAME).describe('Campaign name.'),
  campaign_type: z.enum(['SMART', 'PERFORMANCE_MAX']).describe('PERFORMANCE_MAX also needs logo_url and images.'),
  // A plain number in the schema, so 0 or 2.5 reach planCampaign's clearer message instead of a raw zod one.
  daily_budget_micros: z.number().describe('1000000 = 1.00 of the account currency.'),
  landing_page: text(MAX_URL, 0).describe('URL ads link to.'),
  keyword_themes: list(text(100, 0), MAX_LIST).optional().describe('SMART search themes.'),
  geo_targets: list(text(40, 0), MAX_LIST).optional().describe('Geo target constant ids, e.g. "2840" (US).'),
  logo_url: text(MAX_URL, 0).optional().describe('Image, at least 128x128.'),
  images: list(z.strictObject({ url: text(MAX_URL, 0).describe('Image file.'), kind: z.enum(['MARKETING_IMAGE', 'SQUARE_MARKETING_IMAGE']).describe('Slot.') }), MAX_IMAGES)
    .optional()
    .describe('At least one of each kind.'),
  sitelinks: upTo(z.strictObject({ text: text(200, 0).optional().describe('Link text.'), url: text(MAX_URL, 0).optional().describe('Link URL.') }), MAX_SITELINKS)
    .optional()
    .describe(`PERFORMANCE_MAX extra links, up to ${MAX_SITELINKS}.`),
  headlines: list(text(200, 0), MAX_LIST).optional().describe('3-15, up to 30 characters each.'),
  descriptions: list(text(500, 0), MAX_LIST).optional().describe('2-5 (SMART: 2-4), up to 90 characters each.'),
  business_name: text(200, 0).optional().describe('Up to 25 characters.'),
  phone_number: text(40, 0).optional().describe('E.164.'),
  contains_eu_political_advertising: z.boolean().optional().describe('Declaration required from EU advertisers.'),
  // Open: other keys pass through (checkSettings bounds them). Declared `true`, not zod's `{}`, which
  // the MCP Inspector's --strict check reports as a schema that constrains nothing.
  campaign_settings: z
    .looseObject({ language_code: text(20, 0).optional().describe('e.g. "en".') })
    .meta({ additionalProperties: true })
    .optional()
    .describe('Other keys pass through.'),
};

type CampaignArgs = z.infer<z.ZodObject<typeof campaignInput>>;
type Sitelink = { text: string; url: string };

/** Inputs SMART ignores. We leave them out of the body rather than send what the service drops. */
const PMAX_ONLY = ['logo_url', 'images', 'sitelinks'] as const;
const BODY_FIELDS = [
  'campaign_name',
  'campaign_type',
  'daily_budget_micros',
  'landing_page',
  'keyword_themes',
  'geo_targets',
  ...PMAX_ONLY,
  'headlines',
  'descriptions',
  'business_name',
  'phone_number',
  'contains_eu_political_advertising',
  'campaign_settings',
] as const satisfies ReadonlyArray<keyof CampaignArgs>;

const E164 = /^\+[1-9]\d{6,14}$/;

export interface CampaignPlan {
  /** Exactly what is sent: given inputs under their own names, normalized; omitted ones left out. */
  body: Record<string, unknown>;
  /** Given inputs that SMART ignores; not sent. */
  ignored: string[];
  /** Ad-platform limits the inputs break: the platform enforces them, we only warn. */
  platformWarnings: string[];
  /** Money-like values inside campaign_settings (bids, costs in micros): the warning's cost line names each. */
  settingsMoney: MoneyValue[];
}

/**
 * The one normalization used by both the warning and the request, so what is sent is what was warned about.
 * Every rule is checked before any is reported (issue 17: not one missing requirement per call).
 * @throws CampaignProblemsError (an InputError) naming every field and rule broken; RefusedError, when
 *   nothing else is wrong, for a budget or an amount inside campaign_settings above APPMGMT_MAX_DAILY_BUDGET_MICROS.
 */
export function planCampaign(args: CampaignArgs, config: Pick<Config, 'maxDailyBudgetMicros'>): CampaignPlan {
  const smart = args.campaign_type === 'SMART';
  const problems = new Problems();
  problems.run(() => checkBudget(args.daily_budget_micros, config.maxDailyBudgetMicros));
  problems.run(() => checkUrl('landing_page', args.landing_page));
  const settingsMoney = args.campaign_settings === undefined ? [] : (problems.run(() => checkSettings(args.campaign_settings!, config.maxDailyBudgetMicros)) ?? []);
  if (args.phone_number !== undefined && !E164.test(args.phone_number)) {
    problems.add(new InputError('phone_number', 'must be E.164: + then country code and number, digits only, e.g. +14155550100'));
  }
  problems.add(...geoTargetProblems(args.geo_targets ?? []));
  const normalized: Partial<Record<(typeof BODY_FIELDS)[number], unknown>> = { ...args };
  if (!smart) {
    checkAssets(args, problems);
    if (args.sitelinks !== undefined) normalized.sitelinks = normalizeSitelinks(args.sitelinks, problems);
  }
  problems.throwIfAny();
  const body: Record<string, unknown> = {};
  for (const field of BODY_FIELDS) {
    if (smart && (PMAX_ONLY as readonly string[]).includes(field)) continue;
    if (normalized[field] !== undefined) body[field] = normalized[field];
  }
  return {
    body,
    ignored: smart ? PMAX_ONLY.filter((field) => args[field] !== undefined) : [],
    platformWarnings: platformWarnings(args),
    settingsMoney,
  };
}

function checkBudget(micros: number, cap: number | undefined) {
  if (!Number.isSafeInteger(micros) || micros <= 0) {
    throw new InputError('daily_budget_micros', 'must be a positive whole number of micros (1000000 = 1.00 of the account currency)');
  }
  checkPlausibleDaily('daily_budget_micros', micros);
  if (cap !== undefined && micros > cap) {
    throw new RefusedError(
      `Refused: daily_budget_micros ${micros} (${money(micros)} a day) is above the cap of ${cap} (${money(cap)} a day) set by APPMGMT_MAX_DAILY_BUDGET_MICROS on this server. Use a lower budget, or ask whoever runs the server to raise the cap. Nothing was sent.`,
    );
  }
}

function checkUrl(field: string, value: string) {
  const ok = URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  if (!ok) throw new InputError(field, 'must be an absolute http(s) URL');
}

/**
 * What the service accepts as a logo or image (spec 2.2, 4.2 rule 4): it fetches each address itself,
 * so a web page, a file over 5 MB, an address on another host than it fetches from, or one that does
 * not answer cannot be used. Which host it fetches from is not stated; the service's refusal says.
 */
const ASSET_RULE = 'the address of an image file (not a web page) of at most 5 MB that the service can fetch';

/** PERFORMANCE_MAX's logo and images (2.2): all of what is missing or malformed, as problems. */
function checkAssets(args: CampaignArgs, problems: Problems): void {
  if (args.logo_url === undefined) {
    problems.add(new InputError('logo_url', `required for PERFORMANCE_MAX: ${ASSET_RULE}, at least 128x128`));
  } else {
    problems.run(() => checkUrl('logo_url', args.logo_url!));
  }
  const images = args.images ?? [];
  images.forEach((image, i) => problems.run(() => checkUrl(`images[${i}].url`, image.url)));
  const missing = IMAGE_KINDS.filter((kind) => !images.some((image) => image.kind === kind));
  if (missing.length > 0) {
    problems.add(
      new InputError(
        'images',
        `PERFORMANCE_MAX needs at least one MARKETING_IMAGE and one SQUARE_MARKETING_IMAGE, each ${ASSET_RULE}; ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing`,
      ),
    );
  }
}

const IMAGE_KINDS = ['MARKETING_IMAGE', 'SQUARE_MARKETING_IMAGE'] as const;

const given = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Spec 4.2: rows with neither part are dropped, one-sided rows are rejected, exact duplicates collapse (the schema allows at most 20 rows). */
function normalizeSitelinks(rows: Array<{ text?: string | undefined; url?: string | undefined }>, problems: Problems): Sitelink[] {
  const kept = new Map<string, Sitelink>();
  rows.forEach((row, i) => {
    const hasText = given(row.text);
    const hasUrl = given(row.url);
    if (!hasText && !hasUrl) return;
    if (!hasText || !hasUrl) {
      problems.add(new InputError(`sitelinks[${i}]`, `has only ${hasText ? 'text' : 'url'}; give both text and url, or remove the row`));
      return;
    }
    problems.run(() => checkUrl(`sitelinks[${i}].url`, row.url!));
    const link = { text: row.text!, url: row.url! };
    kept.set(JSON.stringify([link.text, link.url]), link);
  });
  return [...kept.values()];
}

const chars = (text: string) => [...text].length;

/** Limits the ad platform enforces (service-facts.md); breaking them is likely a 400 later, so we warn now. */
function platformWarnings(args: CampaignArgs): string[] {
  const out: string[] = [];
  const maxDescriptions = args.campaign_type === 'SMART' ? 4 : 5;
  const count = (field: string, list: string[] | undefined, min: number, max: number) => {
    if (list !== undefined && (list.length < min || list.length > max)) out.push(`${field}: ${list.length} given, the ad platform expects ${min}-${max}`);
  };
  // One line per field however many items break the limit, so a warning stays short.
  const lengths = (field: string, list: string[], max: number) => {
    const over = list.map((text, i) => [i, chars(text)] as const).filter(([, length]) => length > max);
    if (over.length === 1) out.push(`${field}[${over[0]![0]}] has ${over[0]![1]} characters, the limit is ${max}`);
    if (over.length > 1) out.push(`${over.length} ${field} are over the limit of ${max} characters (the longest has ${Math.max(...over.map(([, length]) => length))})`);
  };
  count('headlines', args.headlines, 3, 15);
  lengths('headlines', args.headlines ?? [], 30);
  count('descriptions', args.descriptions, 2, maxDescriptions);
  lengths('descriptions', args.descriptions ?? [], 90);
  if (args.business_name !== undefined && chars(args.business_name) > 25) {
    out.push(`business_name has ${chars(args.business_name)} characters, the limit is 25`);
  }
  return out;
}
