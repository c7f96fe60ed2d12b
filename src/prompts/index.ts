import type { AnyPrompt } from './define.js';
import { customizeAppEmailPrompt } from './customize-app-email.js';
import { launchAdCampaign } from './launch-ad-campaign.js';
import { reviewAdCampaigns } from './review-ad-campaigns.js';
import { scheduleSocialPosts } from './schedule-social-posts.js';
import { syncRepository } from './sync-repository.js';

/** The workflow prompts, in the order prompts/list shows them. */
export const PROMPTS: AnyPrompt[] = [launchAdCampaign, reviewAdCampaigns, syncRepository, customizeAppEmailPrompt, scheduleSocialPosts];
