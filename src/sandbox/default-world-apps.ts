import type { WorldInput } from './world.js';

/** Groups and apps of the default world (table in default-world.ts). */

export const DEFAULT_GROUPS: WorldInput['groups'] = [
  {
    id: 'grp_design',
    workspace_id: 'ws_demo',
    name: 'Design',
    members: [
      { id: 'mem_dana', email: 'dana@demo.sandbox.test' },
      { id: 'mem_eli', email: 'eli@demo.sandbox.test' },
      { id: 'mem_faye', email: 'faye@demo.sandbox.test' },
    ],
  },
  {
    id: 'grp_sales',
    workspace_id: 'ws_demo',
    name: 'Sales',
    members: [
      { id: 'mem_eli', email: 'eli@demo.sandbox.test' },
      { id: 'mem_gus', email: 'gus@demo.sandbox.test', has_account: false },
      { id: 'mem_hana', email: 'hana@demo.sandbox.test' },
    ],
  },
  {
    id: 'grp_support',
    workspace_id: 'ws_demo',
    name: 'Support',
    members: [{ id: 'mem_ivy', email: 'ivy@demo.sandbox.test' }],
  },
  { id: 'grp_free_team', workspace_id: 'ws_free', name: 'Hobbyists', members: [{ id: 'mem_kim', email: 'kim@free.sandbox.test' }] },
  { id: 'grp_bakers', workspace_id: 'ws_eu', name: 'Bakers', members: [{ id: 'mem_jo', email: 'jo@bakery.sandbox.test' }] },
];

const conflicts = {
  connection: 'healthy' as const,
  merge_conflicts: true,
  conflicted_files: ['src/pages/Home.tsx', 'src/lib/schedule.ts'],
};

/** app_demo's builder chat so far: a turn carried by tool calls (no text) and an internal, hidden note. */
const DEMO_CHAT = {
  messages: [
    { id: 'msg_seed_1', role: 'user' as const, content: 'Add a weekly view to the planner, starting on Monday.' },
    { id: 'msg_seed_2', role: 'assistant' as const, content: '', tool_calls: [{ id: 'call_seed_1', name: 'edit_files', status: 'completed' }] },
    { id: 'msg_seed_3', role: 'assistant' as const, content: 'Context refreshed after the last saved version.', hidden: true },
    { id: 'msg_seed_4', role: 'assistant' as const, content: 'Done: the planner has a weekly view that starts on Monday.' },
  ],
};

export const DEFAULT_APPS: WorldInput['apps'] = [
  {
    id: 'app_demo',
    workspace_id: 'ws_demo',
    name: 'Demo Planner',
    roles: ['user', 'editor', 'admin'],
    direct_roles: { mem_dana: 'admin', mem_hana: 'editor' },
    email_templates: [
      { template_id: 'tpl_seed_invite', email_type: 'user_invite', updated_offset_ms: -20 * 86_400_000 },
      // An ordinary template: a workflow sends it by name, so deleting it breaks that workflow's sends.
      {
        template_id: 'tpl_seed_digest',
        name: 'WeeklyDigest',
        subject: 'Your week in {{app_name}}',
        html: '<html><body><h1>Your week</h1><p>Hi {{first_name}}, here is what happened this week.</p><p>{{digest_items}}</p></body></html>',
        updated_offset_ms: -5 * 86_400_000,
      },
    ],
    group_shares: [{ group_id: 'grp_support', role: 'user', share_id: 'gsh_seed_support' }],
    invited_members: ['mem_ivy'],
    // The conflict workflow: a pull meets conflicting commits, the resolution asks a question in the
    // chat, the answer lets the next resolution resolve, and the saved version still to push goes out.
    repository: {
      connection: 'healthy',
      name: 'demo-studio/demo-planner',
      remote_commits_ahead: 2,
      remote_conflicts: true,
      conflicted_files: conflicts.conflicted_files,
      resolution_outcome: 'needs_input',
      conflict_question:
        'The repository renamed weekStart to startOfWeek in src/lib/schedule.ts and starts weeks on Sunday, while the app starts them on Monday in src/pages/Home.tsx. Which start of the week should the merged version use?',
    },
    chat: DEMO_CHAT,
  },
  { id: 'app_shop', workspace_id: 'ws_demo', name: 'Shop Front', repository: { connection: 'none' } },
  { id: 'app_blog', workspace_id: 'ws_demo', name: 'Team Blog', repository: { connection: 'error', name: 'demo-studio/blog' } },
  { id: 'app_wiki', workspace_id: 'ws_demo', name: 'Wiki', repository: { connection: 'revoked', name: 'demo-studio/wiki' } },
  { id: 'app_crm', workspace_id: 'ws_demo', name: 'CRM', repository: { connection: 'no_installation', name: 'demo-studio/crm' } },
  {
    id: 'app_docs',
    workspace_id: 'ws_demo',
    name: 'Docs Site',
    repository: { ...conflicts, name: 'demo-studio/docs', remote_moved_on: true, saved_version_pushed: true },
  },
  {
    id: 'app_forum',
    workspace_id: 'ws_demo',
    name: 'Forum',
    repository: { ...conflicts, name: 'demo-studio/forum', resolution_outcome: 'needs_input', saved_version_pushed: true },
  },
  {
    id: 'app_notes',
    workspace_id: 'ws_demo',
    name: 'Notes',
    repository: { connection: 'healthy', name: 'demo-studio/notes', has_saved_version: false, remote_commits_ahead: 3 },
  },
  { id: 'app_blocked', workspace_id: 'ws_demo', name: 'Blocked App', blocked: true },
  {
    id: 'app_free',
    workspace_id: 'ws_free',
    name: 'Free Hobby',
    email_templates: [{ template_id: 'tpl_seed_free_reset', email_type: 'password_reset' }],
    repository: { ...conflicts, name: 'tinkerers/hobby' },
  },
  { id: 'app_eu', workspace_id: 'ws_eu', name: 'Bakery Orders' },
  { id: 'app_overdue', workspace_id: 'ws_overdue', name: 'Outfitters Store' },
];
