import { invalid, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { guardApp } from './guard.js';

/** Service facts: insight_id is 1-200 characters. */
const MAX_INSIGHT_ID = 200;
/** The service keeps a bounded number of dismissals, so very old ones can reappear (the bound is our choice). */
export const MAX_DISMISSALS = 100;

/**
 * Dismiss insight: hides one suggestion for the whole account (every campaign of the workspace).
 * Unknown ids also answer 200, and dismissing again succeeds; the answer is always `{"dismissed": true}`.
 */
export const dismissInsight: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/adnet-ads/analytics/insights/dismiss',
  handle(context) {
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const insightId = context.req.query.get('insight_id') ?? '';
    if (insightId.length < 1 || insightId.length > MAX_INSIGHT_ID) {
      return invalid({ loc: ['query', 'insight_id'], msg: `insight_id must be 1-${MAX_INSIGHT_ID} characters`, type: 'value_error' });
    }
    const dismissed = guarded.workspace.dismissed_insights.filter((id) => id !== insightId);
    dismissed.push(insightId);
    guarded.workspace.dismissed_insights = dismissed.slice(-MAX_DISMISSALS);
    return ok({ dismissed: true });
  },
};
