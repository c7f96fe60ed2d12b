import type { Suggestion } from '../../api/schemas.js';
import { quote, sanitize } from '../../text.js';
import { aside, stepTo, type Steps } from '../format.js';

/** What list_campaign_suggestions hands to apply_budget_recommendation, in its text, facts and next step. */

export interface ApplyFacts {
  recommendation_resource_name?: string;
  recommended_daily_budget_micros?: number;
}

/**
 * The arguments apply_budget_recommendation sends back, on a CAMPAIGN_BUDGET suggestion that names
 * its recommendation (documented fields); the payload's proposed budget stands in for a missing amount.
 */
export function applyFacts(suggestion: Suggestion, proposedMicros: number | undefined): ApplyFacts {
  const micros = suggestion.recommended_daily_budget_micros ?? proposedMicros;
  if (suggestion.recommendation_type !== 'CAMPAIGN_BUDGET' || !suggestion.recommendation_resource_name || micros === undefined) return {};
  return { recommendation_resource_name: sanitize(suggestion.recommendation_resource_name, 300), recommended_daily_budget_micros: micros };
}

/** The row's second line: exactly what to pass, or nothing for other suggestions. */
export function applyLine(fact: ApplyFacts): string {
  if (!fact.recommendation_resource_name) return '';
  return `\n  to apply: recommendation_resource_name ${quote(fact.recommendation_resource_name, 300)}, recommended_daily_budget_micros ${fact.recommended_daily_budget_micros}`;
}

/**
 * What to do with the suggestions shown. A budget recommendation that can act on this campaign (one
 * with an action: a recommendation for a campaign the app does not know has none) spends more, so it
 * is an option for the user to weigh, never the default step; a campaign that is not ENABLED would
 * spend nothing more until resumed, and the step says so.
 */
export function suggestionsNext(
  ctx: Steps,
  app_id: string,
  campaign_id: string,
  facts: Array<ApplyFacts & { id: string; action?: string }>,
  campaignStatus?: string,
): string {
  if (facts.length === 0) return 'Nothing needs attention now; check again in a few days.';
  const budget = facts.find((fact) => fact.recommendation_resource_name && fact.action);
  if (budget) {
    const { recommendation_resource_name, recommended_daily_budget_micros } = budget;
    const apply = stepTo(
      ctx,
      'apply_budget_recommendation',
      { app_id, campaign_id, recommendation_resource_name, recommended_daily_budget_micros },
      (call) => `Raising the budget spends more, so it is the user's choice: only if they choose it, call ${call} (they confirm first).`,
    );
    const state =
      campaignStatus && campaignStatus !== 'ENABLED'
        ? ` The campaign is ${sanitize(campaignStatus, 30)}: a higher budget spends nothing until it is resumed, and resuming spends.`
        : aside(ctx, 'list_ad_campaigns', { app_id, include_metrics: true }, (call) => ` Its spend and conversions: ${call}.`);
    return `${apply}${state}`;
  }
  return `Act on a suggestion in the service${aside(ctx, 'dismiss_campaign_suggestion', { app_id, insight_id: facts[0]!.id }, (call) => `, or hide one for the whole workspace with ${call}`)}.`;
}
