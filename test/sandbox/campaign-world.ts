import { DEFAULT_WORLD } from '../../src/sandbox/default-world.js';
import { parseWorld, type World, type WorldInput } from '../../src/sandbox/world.js';

type CampaignInput = NonNullable<WorldInput['campaigns']>[number];

const campaign = (id: string, app_id: string, extra: Partial<CampaignInput> = {}): CampaignInput => ({
  id,
  app_id,
  campaign_name: `Campaign ${id}`,
  campaign_type: 'SMART',
  status: 'ENABLED',
  daily_budget_micros: 10_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
  ...extra,
});

/** A recommendation both app_shop campaigns carry, to show that a dismissal holds workspace-wide. */
const SHARED_INSIGHT = {
  id: 'adnet_rec_strength_shared',
  recommendation_type: 'AD_STRENGTH_DROP' as const,
  severity: 'medium' as const,
  title: 'Ad strength dropped',
  description: 'Add headlines.',
};

/**
 * The default world plus campaigns for the rules it has no example of: a budget shared with
 * campaigns not managed here, campaigns the service paused itself, and workspaces that cannot pay.
 */
export function campaignWorld(): World {
  return parseWorld({
    ...DEFAULT_WORLD,
    campaigns: [
      ...(DEFAULT_WORLD.campaigns ?? []),
      campaign('cmp_shared', 'app_shop', {
        adnet_campaign_id: '7100000050',
        shared_budget: true,
        adnet_recommendations: [
          { id: 'adnet_rec_budget_shared', recommendation_type: 'CAMPAIGN_BUDGET', severity: 'high', title: 'Raise', description: 'Raise it.', recommended_budget_micros: 15_000_000 },
          SHARED_INSIGHT,
        ],
      }),
      campaign('cmp_settled', 'app_shop', { adnet_campaign_id: '7100000051', status: 'PAUSED', paused_by_service: 'unpaid_balance', adnet_recommendations: [SHARED_INSIGHT] }),
      campaign('cmp_tracking', 'app_eu', { adnet_campaign_id: '7100000052', status: 'PAUSED', paused_by_service: 'conversion_tracking', learning_started: false }),
      campaign('cmp_overdue', 'app_overdue', { adnet_campaign_id: '7100000053', status: 'PAUSED', paused_by_service: 'unpaid_balance' }),
      campaign('cmp_free', 'app_free', { adnet_campaign_id: '7100000054' }),
      // 55 campaigns on one app: the list stops at 50, by spend.
      ...Array.from({ length: 55 }, (_, i) =>
        campaign(`cmp_many_${i}`, 'app_wiki', {
          adnet_campaign_id: `72000000${String(i).padStart(2, '0')}`,
          metrics: [{ days_ago: 1, impressions: 100, clicks: 1, conversions: 0, cost_micros: i * 1_000_000 }],
        }),
      ),
    ],
  });
}
