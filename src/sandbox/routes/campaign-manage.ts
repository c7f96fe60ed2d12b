import { fail, isResponse, ok } from '../respond.js';
import type { Route, RouteContext } from '../router.js';
import { iso, type RuntimeCampaign } from '../state.js';
import type { SimResponse } from '../types.js';
import { campaignView } from './campaigns.js';
import { guardApp, type Guarded } from './guard.js';

/** Service facts: the list holds at most 50 campaigns, ordered by spend, with no paging and no sign of more. */
export const MAX_LISTED = 50;

/** The app's campaign with the service's id (never the platform's), or a 404 answer. */
export function findCampaign({ state, params }: RouteContext, guarded: Guarded): RuntimeCampaign | SimResponse {
  const campaign = state.campaigns.find((c) => c.id === params.campaign_id && c.app_id === guarded.app.id);
  return campaign ?? fail(404, 'Campaign not found.');
}

/** Lifetime totals of the stored daily metrics (our choice of window: everything stored). */
function totals(campaign: RuntimeCampaign) {
  const sum = (pick: (day: RuntimeCampaign['metrics'][number]) => number) => campaign.metrics.reduce((total, day) => total + pick(day), 0);
  return {
    impressions: sum((day) => day.impressions),
    clicks: sum((day) => day.clicks),
    cost_micros: sum((day) => day.cost_micros),
    conversions: sum((day) => day.conversions),
  };
}

/** A list row: REMOVED campaigns stay (kept for reporting); `primary_status` is empty on this endpoint. */
function row(campaign: RuntimeCampaign, includeMetrics: boolean) {
  const metrics = includeMetrics ? totals(campaign) : { impressions: 0, clicks: 0, cost_micros: 0, conversions: 0 };
  return {
    id: campaign.id,
    adnet_campaign_id: campaign.adnet_campaign_id,
    campaign_name: campaign.campaign_name,
    campaign_type: campaign.campaign_type,
    status: campaign.status,
    daily_budget_micros: campaign.daily_budget_micros,
    // "" until it has started serving.
    start_date: campaign.learning_started ? iso(campaign.created_at).slice(0, 10) : '',
    primary_status: '',
    ...metrics,
    metrics_pending: !includeMetrics,
  };
}

/** List campaigns (service facts): a JSON array, by spend, at most 50; metrics only with include_metrics=true. */
export const listCampaigns: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/adnet-ads/campaigns',
  handle(context) {
    const guarded = guardApp(context, 'token', 'viewer');
    if (isResponse(guarded)) return guarded;
    const includeMetrics = context.req.query.get('include_metrics') === 'true';
    const rows = context.state.campaigns
      .filter((campaign) => campaign.app_id === guarded.app.id)
      .map((campaign, index) => ({ campaign, index, spend: totals(campaign).cost_micros }))
      .sort((a, b) => b.spend - a.spend || a.index - b.index)
      .slice(0, MAX_LISTED)
      .map(({ campaign }) => row(campaign, includeMetrics));
    return ok(rows);
  },
};

/** Get campaign: one Campaign (2.3), REMOVED ones included. */
export const getCampaign: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/adnet-ads/campaigns/:campaign_id',
  handle(context) {
    const guarded = guardApp(context, 'token', 'viewer');
    if (isResponse(guarded)) return guarded;
    const campaign = findCampaign(context, guarded);
    return isResponse(campaign) ? campaign : ok(campaignView(campaign));
  },
};
