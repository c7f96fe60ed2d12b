/** The `instructions` of the initialize answer: workflows that cross tools, and the confirmation rule. */
export const INSTRUCTIONS = [
  'create_ad_campaign (money) and resolve_repo_conflicts (credits) act only when called again with confirm: true and the same arguments, after the user agreed to the first call\'s warning.',
  'Workflows: create_ad_campaign, later list_campaign_suggestions with its id. A pull reports a merge conflict: resolve_repo_conflicts, then push_app_to_repo if a push failed. After scheduling posts, poll get_scheduling_job (wait_seconds waits).',
].join('\n');
