import type { State } from '../state.js';
import type { Workspace } from '../world.js';
import type { CampaignBody } from './campaign-body.js';

/** Limits the ad platform itself enforces (service facts). */
export const AD_TEXT_LIMITS = {
  headlineChars: 30,
  maxHeadlines: 15,
  descriptionChars: 90,
  maxDescriptions: { SMART: 4, PERFORMANCE_MAX: 5 },
  businessNameChars: 25,
} as const;

export const money = (micros: number, currency: string) => `${(micros / 1_000_000).toFixed(2)} ${currency}`;

/**
 * The ad platform's verdict on a campaign (4.2 rule 2): its reason as `adnet: CODE: text`, or
 * undefined when it accepts. `images` are those left after the service's fetch rules.
 */
export function adnetReview(state: State, workspace: Workspace, body: CampaignBody, images: CampaignBody['images']): string | undefined {
  if (body.daily_budget_micros < workspace.min_daily_budget_micros) {
    const budget = money(body.daily_budget_micros, workspace.currency);
    const minimum = money(workspace.min_daily_budget_micros, workspace.currency);
    return `adnet: CAMPAIGN_BUDGET_BELOW_MINIMUM: daily budget ${budget} is below the minimum ${minimum}`;
  }
  if (state.web.unreachable_hosts.includes(new URL(body.landing_page).hostname)) {
    return `adnet: DESTINATION_NOT_WORKING: the landing page ${body.landing_page} could not be reached`;
  }
  const text = reviewText(state, body);
  if (text) return text;
  if (body.campaign_type === 'PERFORMANCE_MAX') {
    for (const kind of ['MARKETING_IMAGE', 'SQUARE_MARKETING_IMAGE'] as const) {
      if (!images.some((image) => image.kind === kind)) {
        return `adnet: NOT_ENOUGH_${kind}_ASSET: a PERFORMANCE_MAX campaign needs at least one usable ${kind}`;
      }
    }
  }
  return undefined;
}

function reviewText(state: State, body: CampaignBody): string | undefined {
  const limits = AD_TEXT_LIMITS;
  if (body.headlines.length > limits.maxHeadlines) {
    return `adnet: TOO_MANY_HEADLINES: ${body.headlines.length} headlines; at most ${limits.maxHeadlines}`;
  }
  const maxDescriptions = limits.maxDescriptions[body.campaign_type];
  if (body.descriptions.length > maxDescriptions) {
    return `adnet: TOO_MANY_DESCRIPTIONS: ${body.descriptions.length} descriptions; at most ${maxDescriptions} for ${body.campaign_type}`;
  }
  const texts = [
    ...body.headlines.map((value, i) => ({ label: `headline ${i + 1}`, value, max: limits.headlineChars })),
    ...body.descriptions.map((value, i) => ({ label: `description ${i + 1}`, value, max: limits.descriptionChars })),
    ...(body.business_name ? [{ label: 'business name', value: body.business_name, max: limits.businessNameChars }] : []),
  ];
  for (const { label, value, max } of texts) {
    if ([...value].length > max) return `adnet: TEXT_TOO_LONG: ${label} "${value}" is ${[...value].length} characters; the limit is ${max}`;
    const word = state.adnet.blocked_words.find((blocked) => containsWord(value, blocked));
    if (word) return `adnet: POLICY_VIOLATION: ${label} "${value}" contains "${word}", which the advertising policy does not allow`;
  }
  return undefined;
}

function containsWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'iu').test(text);
}
