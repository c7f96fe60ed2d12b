import { z } from 'zod';
import { definePrompt } from './define.js';

export const scheduleSocialPosts = definePrompt({
  name: 'schedule_social_posts',
  title: 'Schedule Social Posts',
  description: 'Schedule the approved posts of a date range and follow the job to the end.',
  args: {
    app_id: z.string().describe('The app whose social calendar to use.'),
    from: z.string().optional().describe('Start of the range, e.g. 2026-12-01.'),
    until: z.string().optional().describe('End of the range (not included).'),
  },
  tools: ['list_social_posts', 'start_scheduling_posts', 'get_scheduling_job'],
  message: ({ from, until }, app) =>
    [
      `Schedule the social posts of ${app}${from || until ? ` from ${from ?? 'now'} until ${until ?? 'a week later'}` : ' (ask me for the date range)'}.`,
      '1. Call list_social_posts for the range and show me what would be scheduled: proposals are not taken, only approved posts.',
      '2. After my yes, call start_scheduling_posts with the range (half-open: the end is not included).',
      '3. Call get_scheduling_job with the job id and wait_seconds 60 until it completes or fails, and tell me the counts.',
    ].join('\n'),
});
