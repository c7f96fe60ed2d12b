import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { CallOutcome } from '../../helpers.js';

export const APP = 'app_demo';
export const CAMPAIGN_PATH = (id = 'cmp_1') => `/api/apps/${APP}/adnet-ads/campaigns/${id}`;

/** A 2.3 Campaign as the service answers get. */
export const CAMPAIGN = {
  id: 'cmp_1',
  adnet_campaign_id: '7100000001',
  campaign_name: 'Spring sale',
  campaign_type: 'PERFORMANCE_MAX',
  status: 'ENABLED',
  daily_budget_micros: 20_000_000,
  landing_page: 'https://shop.example.com/spring',
  geo_targets: ['2840', '2826'],
  phone_number: '+14155550100',
  review_status: 'REVIEWED',
  serving_status: 'SERVING',
  primary_status: 'LIMITED',
  primary_status_reasons: ['CAMPAIGN_BUDGET_LIMITED'],
  created_date: '2026-10-03T09:00:00Z',
  updated_date: '2026-11-01T09:00:00Z',
  learning_ends_at: '2026-10-17T09:00:00Z',
};

/** A list row as the service answers it, metrics not yet computed unless `extra` gives them. */
export const listRow = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `cmp_${i}`,
  adnet_campaign_id: `71000000${String(i).padStart(2, '0')}`,
  campaign_name: `Campaign ${i}`,
  campaign_type: 'SMART',
  status: 'ENABLED',
  daily_budget_micros: 10_000_000,
  start_date: '2026-10-03',
  impressions: 0,
  clicks: 0,
  cost_micros: 0,
  conversions: 0,
  metrics_pending: true,
  primary_status: '',
  ...extra,
});

/** What a model reads of a result: its text and its structured part. */
export const resultTokens = (result: CallOutcome) => countTokens(result.text) + countTokens(JSON.stringify(result.structured ?? {}));
