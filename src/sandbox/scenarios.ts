import { jobView } from './routes/jobs.js';
import type { State } from './state.js';

/** Switches for tests and demos, applied on top of the current state; `reset()` clears them. */
const SCENARIOS: Record<string, { about: string; apply(state: State): void }> = {
  default: {
    about: 'clear every switch (the world keeps its changes)',
    apply(state) {
      state.flags = { adnetUnreachable: !state.adnet.reachable, resolutionSlowdown: 1 };
    },
  },
  adnet_unreachable: {
    about: 'the ad platform does not answer: suggestions hold only the service\'s own; creation, pause, resume, delete and budget apply take effect but answer 409',
    apply: (state) => void (state.flags.adnetUnreachable = true),
  },
  budget_recommendation_changed: {
    about: 'the ad platform raises every open budget recommendation by 5.00: applying a figure read earlier answers 409',
    apply: (state) =>
      state.campaigns.forEach((campaign) =>
        campaign.adnet_recommendations.forEach((rec) => {
          if (rec.recommendation_type === 'CAMPAIGN_BUDGET' && !rec.applied) rec.recommended_budget_micros = (rec.recommended_budget_micros ?? 0) + 5_000_000;
        }),
      ),
  },
  out_of_credits: {
    about: 'every workspace has 0 credits: conflict resolution answers 400',
    apply: (state) => state.workspaces.forEach((workspace) => (workspace.credits = 0)),
  },
  remote_moved_on: {
    about: 'every connected repository moved on: resolution retries once, push fails',
    apply: (state) =>
      state.apps.forEach((app) => {
        if (app.repository.connection === 'healthy') app.repository.remote_moved_on = true;
      }),
  },
  slow_resolution: {
    about: 'conflict-resolution turns take ten times as long (simulated time)',
    apply: (state) => void (state.flags.resolutionSlowdown = 10),
  },
  resolution_needs_input: {
    about: 'conflict resolution waits for an answer in the app chat',
    apply: (state) => void (state.flags.resolutionOutcome = 'needs_input'),
  },
  resolution_conflict: {
    about: 'conflict resolution leaves the conflicts in place',
    apply: (state) => void (state.flags.resolutionOutcome = 'conflict'),
  },
  resolution_apply_pending: {
    about: 'conflict resolution is still applying when it answers',
    apply: (state) => void (state.flags.resolutionOutcome = 'apply_pending'),
  },
  resolution_failed: {
    about: 'conflict resolution ends with no outcome',
    apply: (state) => void (state.flags.resolutionOutcome = 'failed'),
  },
  builder_busy: {
    about: 'every app\'s builder runs a turn for the next 5 minutes: chat messages queue, pulls answer sync_in_progress',
    apply: (state) =>
      state.apps.forEach((app) => (app.chat.busy_until_ms = state.clock.now() - state.startedAt + 5 * 60_000)),
  },
  chat_turn_error: {
    about: 'builder turns fail: chat answers carry status error with error_source "agent"',
    apply: (state) => state.apps.forEach((app) => (app.chat.turn_error_source = 'agent')),
  },
  jobs_fail: {
    about: 'scheduling jobs that have not finished fail, at the end of sandbox_sync or of the phase they are in',
    apply(state) {
      for (const job of state.jobs) {
        const { status, phase } = jobView(state, job);
        if (status !== 'pending' && status !== 'running') continue;
        job.fails_in_phase = phase === 'finalize' ? 'finalize' : 'sandbox_sync';
      }
    },
  },
};

export const SCENARIO_NAMES = Object.keys(SCENARIOS);

export function describeScenarios(): Record<string, string> {
  return Object.fromEntries(Object.entries(SCENARIOS).map(([name, { about }]) => [name, about]));
}

/** @throws Error naming the valid scenarios when `name` is unknown. */
export function applyScenario(state: State, name: string): void {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario "${name}"; choose one of ${SCENARIO_NAMES.join(', ')}`);
  scenario.apply(state);
  state.activeScenarios = name === 'default' ? [] : [...new Set([...state.activeScenarios, name])];
}
