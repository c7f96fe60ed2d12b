import { z } from 'zod';
import { CONFIRM_RULE, definePrompt } from './define.js';

export const reviewAdCampaigns = definePrompt({
  name: 'review_ad_campaigns',
  title: 'Review Ad Campaigns',
  description: "Review an app's campaigns and their suggestions, and act on them with your approval.",
  args: { app_id: z.string().describe('The app whose campaigns to review.') },
  tools: ['list_ad_campaigns', 'list_campaign_suggestions', 'apply_budget_recommendation', 'pause_ad_campaign'],
  message: (_args, app) =>
    [
      `Review the ad campaigns of ${app}.`,
      '1. Call list_ad_campaigns with include_metrics true and summarize spend and results.',
      '2. For each active campaign, call list_campaign_suggestions and tell me the most important ones.',
      `3. If I want a budget recommendation applied, call apply_budget_recommendation with the values the suggestion gives. ${CONFIRM_RULE}`,
      '4. If I want a campaign stopped, call pause_ad_campaign (it stops spend; no confirmation needed).',
    ].join('\n'),
});
