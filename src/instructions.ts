/** The `instructions` of the initialize answer: workflows that cross tools, and the confirmation rule. */
export const INSTRUCTIONS = [
  'Tools for one app-building service: emails, ad campaigns, group shares, social-calendar jobs, repository sync, monitoring.',
  'Costly tools (create_ad_campaign spends money, resolve_repo_conflicts consumes credits) act only on a second call with confirm: true and the same arguments, after the user agreed to the warning of the first call.',
  'Workflows: create_ad_campaign -> later list_campaign_suggestions with the returned id. A pull reports a merge conflict -> resolve_repo_conflicts -> push_app_to_repo if the push failed. After scheduling posts, poll get_scheduling_job (wait_seconds lets it wait).',
].join('\n');
