import { fail, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { guardApp } from './guard.js';
import { adnetSuggestions, ownSuggestions } from './suggest.js';

/** 4.3 List optimization suggestions for a campaign. */
export const listSuggestions: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/adnet-ads/campaigns/:campaign_id/optimization-suggestions',
  handle(context) {
    const { state, params } = context;
    const guarded = guardApp(context, 'token', 'viewer');
    if (isResponse(guarded)) return guarded;
    // The service's own id, not the platform's (4.3).
    const campaign = state.campaigns.find((c) => c.id === params.campaign_id && c.app_id === guarded.app.id);
    if (!campaign) return fail(404, 'Campaign not found.');
    const own = ownSuggestions(state, campaign);
    // 4.3: an unreachable platform still answers 200, with only the service's own part and no signal.
    const all = state.flags.adnetUnreachable ? own : [...own, ...adnetSuggestions(state, campaign)];
    // Dismissals hold for the whole account: every campaign of the workspace.
    const dismissed = new Set(guarded.workspace.dismissed_insights);
    return ok(all.filter((suggestion) => !dismissed.has(suggestion.id)));
  },
};
