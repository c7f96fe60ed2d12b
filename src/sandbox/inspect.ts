import { campaignView } from './routes/campaigns.js';
import { jobView } from './routes/jobs.js';
import { effectiveRoles } from './roles.js';
import { iso, type State } from './state.js';

/** What changed in the world, for tests, demos and `GET /_sandbox/state`. Secrets are left out. */
export function snapshot(state: State) {
  return {
    now: iso(state.clock.now()),
    started_at: iso(state.startedAt),
    active_scenarios: state.activeScenarios,
    workspaces: state.workspaces.map((workspace) => ({
      id: workspace.id,
      plan: workspace.plan.name,
      credits: workspace.credits,
      political_declaration_on_file: workspace.political_declaration_on_file,
    })),
    apps: state.apps.map((app) => ({
      id: app.id,
      workspace_id: app.workspace_id,
      email_templates: app.email_templates,
      group_shares: app.group_shares,
      effective_roles: effectiveRoles(state, app),
      repository: { ...app.repository, commits: state.commits.get(app.id) ?? null },
    })),
    campaigns: state.campaigns.map((campaign) => ({ ...campaignView(campaign), app_id: campaign.app_id, details: campaign.details })),
    jobs: state.jobs.map((job) => ({ app_id: job.app_id, ...jobView(state, job) })),
    invitations: state.invitations,
    resolutions: state.resolutions,
  };
}

export type SimulationSnapshot = ReturnType<typeof snapshot>;
