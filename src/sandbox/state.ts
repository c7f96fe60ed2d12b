import type { SandboxClock } from './clock.js';
import { createIds, type IdSource } from './ids.js';
import { createLimiter, type Limiter } from './limits.js';
import type { World, WorldCampaign } from './world.js';
import type { ResolutionOutcomeSchema } from './world-schema.js';
import type { z } from 'zod';

export const DAY_MS = 86_400_000;

export type ResolutionOutcome = z.infer<typeof ResolutionOutcomeSchema>;

export interface RuntimeCampaign extends WorldCampaign {
  created_at: number;
  updated_at: number;
  /** Inputs kept from the creation request (assets, sitelinks, settings), for inspection. */
  details: Record<string, unknown>;
}

export interface Invitation {
  app_id: string;
  member_id: string;
  email: string;
  sent_at: string;
}

export interface ResolutionRecord {
  app_id: string;
  outcome: ResolutionOutcome;
  attempts: number;
  credits_used: number;
  duration_ms: number;
  at: string;
}

/** Switches set by scenarios; see scenarios.ts. */
export interface Flags {
  adnetUnreachable: boolean;
  resolutionSlowdown: number;
  resolutionOutcome?: ResolutionOutcome;
}

export interface Commits {
  /** Latest saved version on the app's main line, or null when there is none. */
  saved: string | null;
  /** Head of the repository's default branch. */
  remote: string | null;
}

/** The mutable world plus what the simulation records as requests change it. */
export interface State extends Omit<World, 'campaigns'> {
  campaigns: RuntimeCampaign[];
  /** Clock time the world started at; world offsets (days ago, job starts) count from here. */
  startedAt: number;
  clock: SandboxClock;
  ids: IdSource;
  limiter: Limiter;
  commits: Map<string, Commits>;
  invitations: Invitation[];
  resolutions: ResolutionRecord[];
  flags: Flags;
  activeScenarios: string[];
}

export function createState(world: World, clock: SandboxClock, seed = world.seed): State {
  const copy = structuredClone(world);
  const startedAt = clock.now();
  const ids = createIds(seed);
  const commits = new Map<string, Commits>();
  for (const app of copy.apps) {
    const repo = app.repository;
    const saved = repo.has_saved_version ? ids.commitHash() : null;
    const remote = repo.connection === 'none' ? null : repo.saved_version_pushed && saved ? saved : ids.commitHash();
    commits.set(app.id, { saved, remote });
  }
  return {
    ...copy,
    campaigns: copy.campaigns.map((campaign) => {
      const created = startedAt - campaign.created_days_ago * DAY_MS;
      return { ...campaign, created_at: created, updated_at: created, details: {} };
    }),
    startedAt,
    clock,
    ids,
    limiter: createLimiter(clock),
    commits,
    invitations: [],
    resolutions: [],
    flags: { adnetUnreachable: !copy.adnet.reachable, resolutionSlowdown: 1 },
    activeScenarios: [],
  };
}

export const iso = (ms: number) => new Date(ms).toISOString();
