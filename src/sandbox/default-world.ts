/*
 * The default sandbox world. What a person would type:
 *
 * | kind        | id / secret          | what it shows                                                        |
 * |-------------|----------------------|----------------------------------------------------------------------|
 * | workspace   | ws_demo              | pro plan (paid, groups, 2x limits), payment OK, USD (min 1.00), conversion tracking verified, 500 credits; monitoring |
 * | workspace   | ws_free              | free plan (no paid features, no groups), no payment method, 0 credits |
 * | workspace   | ws_eu                | EU advertiser without political declaration, EUR, tracking not verified (PAUSED) |
 * | workspace   | ws_overdue           | payment method but account not in good standing (402), GBP           |
 * | app         | app_demo             | ws_demo main app: 2 remote commits that conflict (pull: merge_conflict), |
 * |             |                      | resolution asks a question in the chat first, unpushed saved version  |
 * | app         | app_shop / app_blog / app_wiki / app_crm | repo none / error / revoked / no installation      |
 * | app         | app_docs             | conflicts and the remote moved on (one automatic retry; push fails)  |
 * | app         | app_forum            | resolution ends needs_input; latest version already pushed           |
 * | app         | app_notes            | nothing saved: nothing to push; 3 new remote commits, a clean pull    |
 * | app         | app_blocked          | blocked app (email customization 403)                                |
 * | app         | app_free, app_eu, app_overdue | the failure workspaces' apps                                |
 * | campaign    | cmp_demo             | app_demo PERFORMANCE_MAX: own + adnet suggestions (one with no campaign: action null) |
 * | campaign    | cmp_quiet            | app_demo SMART: healthy metrics, no suggestions                      |
 * | job         | job_running          | app_demo: pending 5 s, then prepare 10 s, sandbox_sync 20 s, finalize 5 s, completed |
 * | job         | job_failed           | app_demo: fails at the end of sandbox_sync (15 s)                    |
 * | job         | job_empty            | app_demo: nothing in range, completed at once                        |
 * | job         | job_partial          | app_demo: completes after 4 s with plan-limited and failed posts     |
 * | group       | grp_design, grp_sales| ws_demo, not shared yet; mem_eli is in both, mem_gus has no account  |
 * | group       | grp_support          | ws_demo, already shared with app_demo (already_shared)               |
 * | template    | tpl_seed_invite      | app_demo's own UserInvite email; the other three are built-in; no own domain (a customized email_verification is custom_not_sent) |
 * | template    | tpl_seed_digest      | app_demo "WeeklyDigest", an ordinary template a workflow sends by name |
 * | token       | pat_demo_owner       | owner, full_access (demo accessToken)                                |
 * | token       | pat_demo_owner_ro    | owner, read_only                                                     |
 * | token       | pat_demo_owner_shop  | owner, full_access, reaches app_shop only                            |
 * | token       | pat_demo_admin / _editor / _viewer / _member | admin; editor; editor role with viewer access to app_demo; member |
 * | token       | pat_free_owner, pat_eu_owner, pat_overdue_owner | owner of the failure workspaces       |
 * | API key     | key_demo_owner       | owner, personal (demo apiKey and monitoringApiKey)                   |
 * | API key     | key_demo_owner_ro    | owner, personal, read_only                                           |
 * | API key     | key_demo_admin / key_demo_editor / key_demo_member | monitoring: allowed / 401 / 401      |
 * | API key     | wsk_demo             | workspace API key of ws_demo (refused by every app route)            |
 *
 * Images live on files.sandbox.test: huge-banner.png (over 5 MB), silent.png (no answer),
 * brochure.html (not an image), tiny-logo.png (64x64), wide-logo.png (padded); any other address
 * there is a fine image. Hosts down.sandbox.test and offline.example.test are unreachable. The ad
 * platform blocks the words guaranteed, miracle and risk-free.
 */
import { DEFAULT_APPS, DEFAULT_GROUPS } from './default-world-apps.js';
import { DEFAULT_CAMPAIGNS, DEFAULT_JOBS } from './default-world-activity.js';
import { DEFAULT_POSTS } from './default-world-social.js';
import { DEFAULT_CREDENTIALS, DEFAULT_USERS, DEFAULT_WORKSPACES } from './default-world-people.js';
import type { WorldInput } from './world.js';

export const DEFAULT_WORLD: WorldInput = {
  seed: 20261102,
  demo: { access_token: 'pat_demo_owner', api_key: 'key_demo_owner', monitoring_api_key: 'key_demo_owner' },
  adnet: { reachable: true, blocked_words: ['guaranteed', 'miracle', 'risk-free'] },
  web: {
    asset_hosts: ['files.sandbox.test'],
    unreachable_hosts: ['down.sandbox.test', 'offline.example.test'],
    resources: [
      { url: 'https://files.sandbox.test/huge-banner.png', kind: 'image', bytes: 6_000_000, width: 4000, height: 2094 },
      { url: 'https://files.sandbox.test/silent.png', kind: 'no_response' },
      { url: 'https://files.sandbox.test/brochure.html', kind: 'not_image', content_type: 'text/html' },
      { url: 'https://files.sandbox.test/tiny-logo.png', kind: 'image', bytes: 4_000, width: 64, height: 64 },
      { url: 'https://files.sandbox.test/wide-logo.png', kind: 'image', bytes: 40_000, width: 600, height: 200 },
      { url: 'https://files.sandbox.test/banner.png', kind: 'image', bytes: 300_000, width: 1200, height: 628 },
    ],
  },
  workspaces: DEFAULT_WORKSPACES,
  users: DEFAULT_USERS,
  credentials: DEFAULT_CREDENTIALS,
  groups: DEFAULT_GROUPS,
  apps: DEFAULT_APPS,
  campaigns: DEFAULT_CAMPAIGNS,
  jobs: DEFAULT_JOBS,
  posts: DEFAULT_POSTS,
};

/** The notable ids of the default world, for tests and demos. */
export const DEMO_IDS = {
  workspace: 'ws_demo',
  monitoringWorkspace: 'ws_demo',
  app: 'app_demo',
  campaign: 'cmp_demo',
  quietCampaign: 'cmp_quiet',
  jobs: { running: 'job_running', failed: 'job_failed', empty: 'job_empty', partial: 'job_partial' },
  groups: { design: 'grp_design', sales: 'grp_sales', alreadyShared: 'grp_support' },
} as const;
