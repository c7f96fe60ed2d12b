/** The `instructions` of the initialize answer: how to find ids, the confirmation rule, the next step. */
export const INSTRUCTIONS = [
  'Start with check_connection. Ask the user for the app id (no operation lists apps); list_ad_campaigns, list_email_templates, list_group_shares and list_social_posts give the other ids. Group and workspace ids come from the user; in the sandbox check_connection lists them.',
  'Tools that spend money or credits or delete for good first return a warning and send nothing: show it to the user, and only if they agree call again with the same arguments plus confirm: true.',
  "Each result ends with Next: follow it.",
].join('\n');
