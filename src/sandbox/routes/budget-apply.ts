import { z } from 'zod';
import { fail, invalidBody, isResponse, objectBody, ok } from '../respond.js';
import type { Route } from '../router.js';
import type { RuntimeCampaign, State } from '../state.js';
import { findCampaign } from './campaign-manage.js';
import { guardApp } from './guard.js';
import { recommendationResourceName } from './suggest.js';

/** The documented body names; all three come from a CAMPAIGN_BUDGET suggestion. */
const ApplyBodySchema = z.looseObject({
  recommendation_resource_name: z.string().min(1),
  recommended_daily_budget_micros: z.number().int().positive(),
  recommendation_type: z.literal('CAMPAIGN_BUDGET'),
});

/**
 * Apply budget recommendation (service facts). The amount is a confirmation, not a value to set:
 * the platform's current figure is applied, and a body whose figure is not the current one answers
 * 409, as does a budget shared with campaigns not managed here. Applying twice answers
 * `already_applied`. Answer (our choice): `{already_applied, daily_budget_micros}`.
 */
export const applyBudgetRecommendation: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/adnet-ads/campaigns/:campaign_id/budget-recommendation/apply',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const campaign = findCampaign(context, guarded);
    if (isResponse(campaign)) return campaign;
    const object = objectBody(req.body);
    if (isResponse(object)) return object;
    const parsed = ApplyBodySchema.safeParse(object);
    if (!parsed.success) return invalidBody(parsed.error.issues);
    const body = parsed.data;
    if (campaign.status === 'REMOVED') return fail(400, 'The campaign is deleted (REMOVED); its budget cannot be changed.');
    const rec = campaign.adnet_recommendations.find(
      (candidate) => candidate.recommendation_type === 'CAMPAIGN_BUDGET' && recommendationResourceName(campaign, candidate) === body.recommendation_resource_name,
    );
    if (!rec) return fail(404, 'No budget recommendation with this resource name for this campaign; read the suggestions again.');
    if (rec.applied) return ok({ already_applied: true, daily_budget_micros: campaign.daily_budget_micros });
    const targetsThis = rec.adnet_campaign_id === undefined || rec.adnet_campaign_id === campaign.adnet_campaign_id;
    if (!targetsThis || campaign.shared_budget) {
      return fail(409, 'The budget is shared with campaigns not managed here; apply the recommendation at the ad platform.');
    }
    const current = rec.recommended_budget_micros ?? 0;
    if (body.recommended_daily_budget_micros !== current) {
      return fail(409, 'The recommended budget changed since it was read; read the suggestions again and apply the current figure.');
    }
    apply(state, campaign, current);
    rec.applied = true;
    // The platform timed out after the change went through. Not a 409: for this operation the
    // service documents 409 as a sure refusal (figure changed, shared budget), so a timeout is a 504.
    if (state.flags.adnetUnreachable) return fail(504, 'adnet did not answer in time; the budget may or may not have changed. Read the campaign back before retrying.');
    return ok({ already_applied: false, daily_budget_micros: campaign.daily_budget_micros });
  },
};

/** The new budget; a campaign no longer limited by budget loses that reason. */
function apply(state: State, campaign: RuntimeCampaign, micros: number): void {
  campaign.daily_budget_micros = micros;
  campaign.updated_at = state.clock.now();
  campaign.primary_status_reasons = campaign.primary_status_reasons.filter((reason) => reason !== 'CAMPAIGN_BUDGET_LIMITED');
  if (campaign.primary_status === 'LIMITED' && campaign.primary_status_reasons.length === 0) campaign.primary_status = 'ELIGIBLE';
}
