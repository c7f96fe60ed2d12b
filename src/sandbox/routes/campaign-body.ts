import { z } from 'zod';
import { fail, invalid, invalidBody, isResponse, objectBody } from '../respond.js';
import type { SimResponse } from '../types.js';

/**
 * The 4.2 body. Names the spec leaves unshown follow service-facts.md (`logo_url`, `images`,
 * `headlines`, `descriptions`, `sitelinks`, `business_name`, `phone_number`,
 * `contains_eu_political_advertising`, `campaign_settings`). Unknown fields pass, as a lenient API would.
 */
export const CampaignBodySchema = z.looseObject({
  campaign_name: z.string().trim().min(1),
  campaign_type: z.enum(['SMART', 'PERFORMANCE_MAX']),
  daily_budget_micros: z.number().int().positive(),
  landing_page: z.url({ protocol: /^https?$/ }),
  keyword_themes: z.array(z.string()).default([]),
  geo_targets: z.array(z.string()).default([]),
  logo_url: z.string().nullish(),
  images: z
    .array(z.looseObject({ url: z.string().min(1), kind: z.enum(['MARKETING_IMAGE', 'SQUARE_MARKETING_IMAGE']) }))
    .default([]),
  sitelinks: z.array(z.looseObject({ text: z.string().nullish(), url: z.string().nullish() })).default([]),
  headlines: z.array(z.string()).default([]),
  descriptions: z.array(z.string()).default([]),
  business_name: z.string().nullish(),
  phone_number: z.string().nullish(),
  contains_eu_political_advertising: z.boolean().nullish(),
  campaign_settings: z.looseObject({ language_code: z.string().optional() }).nullish(),
});

export type CampaignBody = z.output<typeof CampaignBodySchema>;
export interface Sitelink {
  text: string;
  url: string;
}

export const MAX_SITELINKS = 20;

/** The body, or its 422 (2.9) answer. */
export function parseCampaignBody(raw: unknown): CampaignBody | SimResponse {
  const object = objectBody(raw);
  if (isResponse(object)) return object;
  const parsed = CampaignBodySchema.safeParse(object);
  return parsed.success ? parsed.data : invalidBody(parsed.error.issues);
}

/**
 * 4.2 extra links: a row with neither text nor url is dropped, a row with only one of them is
 * rejected, exact duplicates collapse to one, and at most 20 remain.
 */
export function cleanSitelinks(rows: CampaignBody['sitelinks']): Sitelink[] | SimResponse {
  const kept: Sitelink[] = [];
  const seen = new Set<string>();
  const problems = [];
  for (const [index, row] of rows.entries()) {
    const text = row.text ?? '';
    const url = row.url ?? '';
    if (!text.trim() && !url.trim()) continue;
    if (!text.trim() || !url.trim()) {
      const missing = text.trim() ? 'url' : 'text';
      problems.push({ loc: ['body', 'sitelinks', String(index), missing], msg: `A sitelink needs both text and url; this row has no ${missing}`, type: 'missing' });
      continue;
    }
    const key = JSON.stringify([text, url]);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ text, url });
  }
  if (problems.length > 0) return invalid(...problems);
  if (kept.length > MAX_SITELINKS) {
    return invalid({ loc: ['body', 'sitelinks'], msg: `At most ${MAX_SITELINKS} sitelinks, counted after dropping empty rows and duplicates; got ${kept.length}`, type: 'too_long' });
  }
  return kept;
}

/** 4.2: international format with country code (E.164), otherwise 400. */
export function checkPhone(phone: string | null | undefined): SimResponse | undefined {
  if (phone === null || phone === undefined || phone === '') return undefined;
  if (/^\+[1-9]\d{6,14}$/.test(phone)) return undefined;
  return fail(400, `phone_number "${phone}" is not in international format; use E.164 with the country code, e.g. +14155550123.`);
}
