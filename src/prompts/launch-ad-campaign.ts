import { z } from 'zod';
import { CONFIRM_RULE, definePrompt } from './define.js';

export const launchAdCampaign = definePrompt({
  name: 'launch_ad_campaign',
  title: 'Launch Ad Campaign',
  description: 'Create an ad campaign step by step, with the cost confirmed by you.',
  args: {
    app_id: z.string().describe('The app to advertise.'),
    landing_page: z.string().optional().describe('Where the ads link to.'),
  },
  tools: ['check_connection', 'create_ad_campaign', 'get_ad_campaign'],
  message: ({ landing_page }, app) =>
    [
      `Launch an ad campaign for ${app}${landing_page ? ` that links to ${landing_page}` : ''}.`,
      '1. Call check_connection.',
      '2. Ask me for what is missing: campaign name, type (SMART, or PERFORMANCE_MAX, which needs a logo and both image kinds), daily budget and landing page.',
      `3. Call create_ad_campaign. ${CONFIRM_RULE}`,
      '4. Call get_ad_campaign with the id it returns and tell me its status: it may start PAUSED, and nothing is spent then.',
    ].join('\n'),
});
