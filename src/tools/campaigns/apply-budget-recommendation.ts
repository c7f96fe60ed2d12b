import { z } from 'zod';
import type { Suggestion } from '../../api/schemas.js';
import { InputError, RefusedError } from '../../errors.js';
import { idText, quote, sanitize, sentText } from '../../text.js';
import { defineTool, type Commitment, type ToolContext, type Warning } from '../define.js';
import { appId, id, text } from '../fields.js';
import { aside, money, stepTo, type Steps } from '../format.js';
import { budgetText, campaignLabel, MIN_PLAUSIBLE_DAILY_MICROS, monthly } from './campaign-view.js';

/** A daily budget of a million units: far above any real one, and well inside a safe integer. */
const MAX_MICROS = 1e12;

const CONFIRMATION_NOT_VALUE =
  "The amount confirms the recommendation's figure and cannot be another: the service applies the ad platform's current figure, and answers 409 if that changed meanwhile (or if the budget is shared with campaigns not managed here).";
/** Said wherever a figure of the caller's own is refused or asked for: no operation sets one (spec 4.9, service facts). */
export const NO_OWN_BUDGET =
  'No tool here sets a daily budget of your own choosing: the service applies only the ad platform\'s recommended figure, and any other budget is changed in the service or at the ad platform.';

export const applyBudgetRecommendation = defineTool({
  name: 'apply_budget_recommendation',
  title: 'Apply Budget Recommendation',
  description:
    "Apply a CAMPAIGN_BUDGET suggestion: the daily budget becomes the ad platform's figure, raising real spend. It cannot set a budget of your own choosing.",
  input: {
    app_id: appId,
    campaign_id: id('Campaign id.'),
    recommendation_resource_name: text(300).describe('From the suggestion.'),
    // A plain number in the schema, so 0 or 2.5 reach the check's clearer message.
    recommended_daily_budget_micros: z.number().describe('From the suggestion.'),
  },
  output: {
    campaign_id: z.string(),
    already_applied: z.boolean().describe('true: applied earlier; nothing changed now.'),
    daily_budget: z.number().optional().describe('The daily budget now, currency units.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  cost: 'money',
  gate: {
    check: ({ recommendation_resource_name: name, recommended_daily_budget_micros: micros }, { maxDailyBudgetMicros: cap }) => {
      if (!name.trim()) throw new InputError('recommendation_resource_name', 'must be the name the suggestion shows, not empty');
      if (!Number.isSafeInteger(micros) || micros <= 0 || micros > MAX_MICROS) {
        throw new InputError('recommended_daily_budget_micros', 'must be the positive whole number of micros the suggestion shows');
      }
      // Issue 17: a figure under 0.01 a day is no recommendation; it is units typed as micros.
      if (micros < MIN_PLAUSIBLE_DAILY_MICROS) {
        throw new InputError(
          'recommended_daily_budget_micros',
          `${micros} is ${money(micros)} a day, too small to be a recommended budget: pass the micros the suggestion shows, unchanged (1000000 = 1.00, so 15.00 a day is 15000000)`,
        );
      }
      if (cap !== undefined && micros > cap) {
        throw new RefusedError(
          `Refused: the recommended daily budget ${money(micros)} is above the cap of ${money(cap)} a day set by APPMGMT_MAX_DAILY_BUDGET_MICROS on this server. Ask whoever runs the server to raise the cap. Nothing was sent.`,
        );
      }
    },
    warn: (args, ctx) => warning(args, ctx),
    commits: async ({ app_id, campaign_id, recommended_daily_budget_micros }, { api, signal }) =>
      increase((await api.getAdCampaign(app_id, campaign_id, { signal })).daily_budget_micros, recommended_daily_budget_micros),
    unknownOutcome: 'The budget may or may not have changed. Read the campaign back with get_ad_campaign before trying again.',
    // Service facts: this operation answers 409 only when the figure changed since it was read, or the
    // budget is shared with campaigns not managed here; either way it applied nothing.
    refusals: {
      409: {
        why: "the ad platform's recommended figure changed since it was read, or the campaign's budget is shared with campaigns not managed here",
        next: 'Read the suggestions again with list_campaign_suggestions for this campaign: a new figure needs a new warning with it. A shared budget can only be changed at the ad platform.',
      },
    },
    done: ({ structured }) =>
      structured?.already_applied === true
        ? 'the recommendation was already applied; nothing changed'
        : `applied the recommendation; daily budget now ${typeof structured?.daily_budget === 'number' ? structured.daily_budget.toFixed(2) : 'not given'}`,
  },
  statusHints: {
    400: "The campaign's budget cannot be changed (it is deleted: REMOVED) or the ad platform refused. Nothing changed.",
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: this needs a full-access token with editor access to this app (workspace API keys are refused by ad endpoints).',
    404: 'App, campaign or recommendation not found. Read the suggestions again with list_campaign_suggestions and pass its values exactly.',
    422: 'The service refused the request: pass recommendation_resource_name and recommended_daily_budget_micros exactly as the suggestion shows them.',
    429: 'Rate limited by the service; nothing changed (this server never retries an apply on its own).',
  },
  async run({ app_id, campaign_id, recommendation_resource_name, recommended_daily_budget_micros }, ctx) {
    const { api, signal } = ctx;
    const answer = await api.applyBudgetRecommendation(app_id, campaign_id, { recommendation_resource_name, recommended_daily_budget_micros }, { signal });
    const micros = answer.daily_budget_micros;
    const already = answer.already_applied === true;
    const budget = typeof micros === 'number' ? `daily budget ${budgetText(micros)}` : 'the service did not give the new budget';
    const text = already
      ? `Already applied: this recommendation was applied to campaign ${idText(campaign_id)} earlier; nothing changed now. Now: ${budget}.`
      : `Applied the budget recommendation to campaign ${idText(campaign_id)} on app ${idText(app_id)}: ${budget}; real money while it serves.`;
    return {
      text,
      next: stepTo(ctx, 'get_ad_campaign', { app_id, campaign_id }, (call) => `Read the campaign back with ${call} to see its budget and whether it serves.`),
      structured: {
        campaign_id: sanitize(campaign_id, 200),
        already_applied: already,
        ...(typeof micros === 'number' ? { daily_budget: micros / 1_000_000 } : {}),
      },
    };
  },
});

/**
 * The recommendation must be a CAMPAIGN_BUDGET suggestion of this campaign, acting on it, with the amount it shows now.
 * @throws RefusedError naming what did not match; nothing was sent.
 */
function checkRecommendation(args: Args, suggestions: Suggestion[], ctx: Steps): void {
  const { app_id, campaign_id, recommendation_resource_name: name, recommended_daily_budget_micros: micros } = args;
  const campaign = idText(campaign_id);
  const read = `Nothing was sent.${aside(ctx, 'list_campaign_suggestions', { app_id, campaign_id }, (call) => ` Read the suggestions with ${call} and pass one exactly.`)}`;
  const suggestion = suggestions.find((s) => s.recommendation_type === 'CAMPAIGN_BUDGET' && s.recommendation_resource_name === name);
  if (!suggestion) {
    throw new RefusedError(
      `Refused: no budget suggestion of campaign ${campaign} names ${quote(name, 300)} now: it may belong to another campaign or ad account, be applied already, or be dismissed. ${read}`,
    );
  }
  const targets = suggestion.action_payload?.campaign_ids ?? [];
  if (!suggestion.action || (targets.length > 0 && !targets.includes(campaign_id))) {
    throw new RefusedError(
      `Refused: this recommendation is for an ad-platform campaign not managed here (another campaign or ad account), not for campaign ${campaign}: the service cannot apply it here. Apply it at the ad platform, if at all. Nothing was sent.`,
    );
  }
  // The true reason (issue 29): the figure given is not the one the recommendation shows now. Whether
  // the caller chose it or read an older figure, nothing says; the answer claims neither.
  const current = suggestion.recommended_daily_budget_micros;
  if (typeof current === 'number' && current !== micros) {
    throw new RefusedError(
      `Refused: recommended_daily_budget_micros ${micros} (${money(micros)} a day) is not this recommendation's figure: it recommends ${current} (${money(current)} a day) now. ${NO_OWN_BUDGET} Nothing was sent. To apply the recommendation, call again with ${current}; the user confirms it first.`,
    );
  }
}

type Args = { app_id: string; campaign_id: string; recommendation_resource_name: string; recommended_daily_budget_micros: number };

/**
 * Reads the campaign's current budget, so the user sees current → new and the monthly difference,
 * then its suggestions, so only a recommendation the service lists for this campaign is warned about
 * (issue 16: another campaign's or another ad account's recommendation is refused before the gate
 * remembers anything). Both reads are the cheapest that prove what they must: the campaign GET
 * proves the token, app and campaign; the suggestion list is the only read that names recommendations.
 * @throws RefusedError for a deleted campaign or a recommendation this campaign cannot apply.
 */
async function warning(args: Args, ctx: ToolContext): Promise<Warning> {
  const { api, signal } = ctx;
  const { app_id, campaign_id, recommended_daily_budget_micros: next } = args;
  const campaign = await api.getAdCampaign(app_id, campaign_id, { signal });
  if (campaign.status === 'REMOVED') {
    throw new RefusedError(`Campaign ${idText(campaign_id)} is deleted (REMOVED): its budget cannot change. Nothing was sent.`);
  }
  checkRecommendation(args, await api.listCampaignSuggestions(app_id, campaign_id, { signal }), ctx);
  const current = campaign.daily_budget_micros;
  const known = typeof current === 'number';
  const difference = known ? monthly(next) - monthly(current) : 0;
  const change = !known
    ? `daily budget becomes ${money(next)} in the account currency (current budget not given), roughly ${money(monthly(next))} a month`
    : `daily budget ${money(current)} → ${money(next)} in the account currency: roughly ${difference >= 0 ? '+' : '-'}${money(Math.abs(difference))} a month (about ${money(monthly(next))} a month in all)`;
  const details = [
    'Request body (exactly what is sent):',
    `- recommendation_resource_name: ${sentText(args.recommendation_resource_name, 300).text}`,
    `- recommended_daily_budget_micros: ${next} (${money(next)} a day)`,
    '- recommendation_type: CAMPAIGN_BUDGET',
    CONFIRMATION_NOT_VALUE,
    'If it is applied meanwhile, the service answers already_applied and changes nothing.',
  ];
  if (campaign.status === 'PAUSED') details.push('The campaign is PAUSED: nothing is spent until it is resumed.');
  return {
    commits: increase(current, next),
    action: `Apply the budget recommendation to campaign ${campaignLabel(campaign_id, campaign)} on app ${idText(app_id)}: daily budget ${known ? `${money(current)} → ` : ''}${money(next)}`,
    cost: `${change}; real money while it serves.`,
    details,
  };
}

/** What applying commits: the increase over the current budget (nothing for a decrease), or the whole new budget when the current one is not known. */
function increase(current: number | null | undefined, next: number): Commitment {
  return { micros: typeof current === 'number' ? Math.max(0, next - current) : next };
}
