import type { WorldInput } from './world.js';

/** Workspaces, people and credentials of the default world (table in default-world.ts). */

export const DEFAULT_WORKSPACES: WorldInput['workspaces'] = [
  {
    id: 'ws_demo',
    name: 'Demo Studio',
    plan: { name: 'pro', paid_features: true, workspace_groups: true, rate_limit_multiplier: 2 },
    payment_method: true,
    good_standing: true,
    conversion_tracking_verified: true,
    currency: 'USD',
    min_daily_budget_micros: 1_000_000,
    credits: 500,
    credits_per_ai_turn: 5,
    monitoring: {
      tier: 'enterprise',
      daily_message_limit: 5000,
      messages_today: 1320,
      messages_this_month: 18_400,
      bonus_credits: 250,
      gift_card_balance_cents: 5000,
      member_daily_limit: 400,
      member_messages_today: { usr_olivia: 210, usr_adam: 450, usr_erin: 380, usr_mia: 280 },
    },
  },
  {
    id: 'ws_free',
    name: 'Free Tinkerers',
    plan: { name: 'free', paid_features: false, workspace_groups: false, rate_limit_multiplier: 1 },
    payment_method: false,
    good_standing: true,
    conversion_tracking_verified: false,
    currency: 'USD',
    min_daily_budget_micros: 1_000_000,
    credits: 0,
  },
  {
    id: 'ws_eu',
    name: 'Berlin Bakery',
    plan: { name: 'business', paid_features: true, workspace_groups: true, rate_limit_multiplier: 3 },
    payment_method: true,
    good_standing: true,
    eu_advertiser: true,
    political_declaration_on_file: false,
    conversion_tracking_verified: false,
    currency: 'EUR',
    min_daily_budget_micros: 1_000_000,
    credits: 200,
  },
  {
    id: 'ws_overdue',
    name: 'Overdue Outfitters',
    plan: { name: 'pro', paid_features: true, workspace_groups: true, rate_limit_multiplier: 2 },
    payment_method: true,
    good_standing: false,
    conversion_tracking_verified: true,
    currency: 'GBP',
    min_daily_budget_micros: 1_000_000,
    credits: 100,
  },
];

export const DEFAULT_USERS: WorldInput['users'] = [
  {
    id: 'usr_olivia',
    name: 'Olivia Owner',
    email: 'olivia@demo.sandbox.test',
    workspace_roles: { ws_demo: 'owner', ws_free: 'owner', ws_eu: 'owner', ws_overdue: 'owner' },
  },
  { id: 'usr_adam', name: 'Adam Admin', email: 'adam@demo.sandbox.test', workspace_roles: { ws_demo: 'admin' } },
  {
    id: 'usr_erin',
    name: 'Erin Editor',
    email: 'erin@demo.sandbox.test',
    workspace_roles: { ws_demo: 'editor' },
    app_access: { app_demo: 'editor', app_shop: 'editor' },
  },
  {
    id: 'usr_vic',
    name: 'Vic Viewer',
    email: 'vic@demo.sandbox.test',
    workspace_roles: { ws_demo: 'editor' },
    app_access: { app_demo: 'viewer' },
  },
  {
    id: 'usr_mia',
    name: 'Mia Member',
    email: 'mia@demo.sandbox.test',
    workspace_roles: { ws_demo: 'member' },
    app_access: { app_demo: 'editor' },
  },
];

const token = (token: string, user_id: string, workspace_id: string, permission: 'full_access' | 'read_only' = 'full_access') => ({
  token,
  user_id,
  workspace_id,
  permission,
});

export const DEFAULT_CREDENTIALS: WorldInput['credentials'] = {
  access_tokens: [
    token('pat_demo_owner', 'usr_olivia', 'ws_demo'),
    token('pat_demo_owner_ro', 'usr_olivia', 'ws_demo', 'read_only'),
    { ...token('pat_demo_owner_shop', 'usr_olivia', 'ws_demo'), app_id: 'app_shop' },
    token('pat_demo_admin', 'usr_adam', 'ws_demo'),
    token('pat_demo_editor', 'usr_erin', 'ws_demo'),
    token('pat_demo_viewer', 'usr_vic', 'ws_demo'),
    token('pat_demo_member', 'usr_mia', 'ws_demo'),
    token('pat_free_owner', 'usr_olivia', 'ws_free'),
    token('pat_eu_owner', 'usr_olivia', 'ws_eu'),
    token('pat_overdue_owner', 'usr_olivia', 'ws_overdue'),
  ],
  personal_api_keys: [
    { key: 'key_demo_owner', user_id: 'usr_olivia', workspace_id: 'ws_demo' },
    { key: 'key_demo_owner_ro', user_id: 'usr_olivia', workspace_id: 'ws_demo', permission: 'read_only' },
    { key: 'key_demo_admin', user_id: 'usr_adam', workspace_id: 'ws_demo' },
    { key: 'key_demo_editor', user_id: 'usr_erin', workspace_id: 'ws_demo' },
    { key: 'key_demo_member', user_id: 'usr_mia', workspace_id: 'ws_demo' },
    { key: 'key_eu_owner', user_id: 'usr_olivia', workspace_id: 'ws_eu' },
  ],
  workspace_api_keys: [{ key: 'wsk_demo', workspace_id: 'ws_demo' }],
};
