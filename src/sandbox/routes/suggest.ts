import { DAY_MS, type RuntimeCampaign, type State } from '../state.js';

/** Section 8: the service's own suggestions read stored metrics of the last 14 days. */
export const METRICS_WINDOW_DAYS = 14;

export interface Suggestion {
  id: string;
  severity: 'high' | 'medium' | 'low';
  title: string;
  description: string;
  action: 'edit_budget' | 'edit_sitelinks' | 'improve_assets' | 'open_campaign' | null;
  action_payload: { campaign_ids: string[]; field: string; value?: number };
  source?: 'adnet';
  recommendation_type?: 'CAMPAIGN_BUDGET' | 'AD_STRENGTH_DROP';
  /** On CAMPAIGN_BUDGET ones (documented): what applying the recommendation sends back. */
  recommendation_resource_name?: string;
  recommended_daily_budget_micros?: number;
}

type AdnetRecommendation = RuntimeCampaign['adnet_recommendations'][number];

/**
 * The ad platform's name of a recommendation. The sandbox has no ad account ids, so the customer
 * part is the targeted campaign's adnet id (e.g. customers/7100000001/recommendations/...).
 */
export function recommendationResourceName(campaign: RuntimeCampaign, rec: AdnetRecommendation): string {
  return `customers/${rec.adnet_campaign_id ?? (campaign.adnet_campaign_id || '0')}/recommendations/${rec.id}`;
}

/** 4.3: computed from stored metrics only, with no ad-platform call. */
export function ownSuggestions(state: State, campaign: RuntimeCampaign): Suggestion[] {
  const now = state.clock.now();
  const recent = campaign.metrics.filter((day) => {
    const age = now - (state.startedAt - day.days_ago * DAY_MS);
    return age >= 0 && age < METRICS_WINDOW_DAYS * DAY_MS;
  });
  if (recent.length === 0) return [];
  const sum = (pick: (day: (typeof recent)[number]) => number) => recent.reduce((total, day) => total + pick(day), 0);
  const impressions = sum((day) => day.impressions);
  const clicks = sum((day) => day.clicks);
  const conversions = sum((day) => day.conversions);
  const limitedDays = recent.filter((day) => day.budget_limited).length;
  const ids = [campaign.id];
  const out: Suggestion[] = [];

  if (limitedDays >= 3) {
    // Half as much again, rounded to a whole currency unit.
    const value = Math.round((campaign.daily_budget_micros * 1.5) / 1_000_000) * 1_000_000;
    out.push({
      id: `sug_${campaign.id}_budget`,
      severity: 'high',
      title: 'Budget limited the campaign',
      description: `The daily budget ran out on ${limitedDays} of the last ${METRICS_WINDOW_DAYS} days, so ads stopped showing early. Raising it lets the campaign serve all day.`,
      action: 'edit_budget',
      action_payload: { campaign_ids: ids, field: 'daily_budget_micros', value },
    });
  }
  if (clicks >= 100 && conversions === 0) {
    out.push({
      id: `sug_${campaign.id}_no_conversions`,
      severity: 'high',
      title: 'Clicks but no conversions',
      description: `${clicks} clicks in the last ${METRICS_WINDOW_DAYS} days brought no conversions. Check the landing page and conversion tracking.`,
      action: 'open_campaign',
      action_payload: { campaign_ids: ids, field: 'landing_page' },
    });
  }
  if (impressions >= 1000 && clicks / impressions < 0.01) {
    out.push({
      id: `sug_${campaign.id}_low_ctr`,
      severity: 'medium',
      title: 'Few people click the ads',
      description: `Only ${((clicks / impressions) * 100).toFixed(2)}% of ${impressions} impressions led to a click. Fresher headlines and images usually help.`,
      action: 'improve_assets',
      action_payload: { campaign_ids: ids, field: 'assets' },
    });
  }
  if (campaign.campaign_type === 'PERFORMANCE_MAX' && campaign.sitelink_count < 4 && impressions > 0) {
    out.push({
      id: `sug_${campaign.id}_sitelinks`,
      severity: 'low',
      title: 'Add more sitelinks',
      description: `The campaign has ${campaign.sitelink_count} sitelinks. Four or more give people more ways into the site.`,
      action: 'edit_sitelinks',
      action_payload: { campaign_ids: ids, field: 'sitelinks' },
    });
  }
  return out;
}

/** 4.3: the platform's recommendations, marked with `source` and `recommendation_type`; applied ones are gone. */
export function adnetSuggestions(state: State, campaign: RuntimeCampaign): Suggestion[] {
  return campaign.adnet_recommendations.filter((rec) => !rec.applied).map((rec) => {
    const targetId = rec.adnet_campaign_id ?? campaign.adnet_campaign_id;
    // 2.6: the action is null when no campaign of the app could be resolved to act on.
    const target = state.campaigns.find((c) => c.app_id === campaign.app_id && c.adnet_campaign_id !== '' && c.adnet_campaign_id === targetId);
    const budget = rec.recommendation_type === 'CAMPAIGN_BUDGET';
    const payload: Suggestion['action_payload'] = {
      campaign_ids: target ? [target.id] : [],
      field: budget ? 'daily_budget_micros' : 'assets',
    };
    if (rec.recommended_budget_micros !== undefined) payload.value = rec.recommended_budget_micros;
    return {
      id: rec.id,
      severity: rec.severity,
      title: rec.title,
      description: rec.description,
      action: target ? (budget ? 'edit_budget' : 'improve_assets') : null,
      action_payload: payload,
      source: 'adnet',
      recommendation_type: rec.recommendation_type,
      ...(budget
        ? { recommendation_resource_name: recommendationResourceName(campaign, rec), recommended_daily_budget_micros: rec.recommended_budget_micros ?? 0 }
        : {}),
    };
  });
}
